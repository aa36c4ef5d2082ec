public import FTMS

/// What the connect sequence learned about a machine.
public struct MachineInfo: Sendable, Equatable {
    public var path: String
    public var name: String
    public var address: String
    /// Bike or rower: by the name, or for a generic FTMS machine by the data characteristic it has.
    public var type: MachineType
    /// Device Information 0x2A29, e.g. "SolidFocus".
    public var manufacturer: String?
    /// Device Information 0x2A24, e.g. "SF-Bike-M1".
    public var model: String?
    public var features: FitnessMachineFeature?
    /// 0x2ACC as read, for captures to record exactly what the machine said.
    public var featureBytes: [UInt8]?
    /// Supported Resistance Level Range (0x2AD6), when the machine has it.
    public var resistanceRange: SupportedRange?
    /// How the data and status notifications arrive (AcquireNotify or StartNotify), by characteristic.
    public var notifyPaths: [Characteristic: NotifyPath] = [:]

    /// How the data characteristic (Indoor Bike Data or Rower Data) is served: the one that
    /// carries the 4 Hz stream, so the one whose path decides what a notification costs.
    public var dataNotifyPath: NotifyPath? {
        notifyPaths[.indoorBikeData] ?? notifyPaths[.rowerData]
    }
}

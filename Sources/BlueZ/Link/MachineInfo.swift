package import FTMS

/// What the connect sequence learned about a machine.
package struct MachineInfo: Sendable, Equatable {
    package var path: String
    package var name: String
    package var address: String
    /// Bike or rower: by the name, or for a generic FTMS machine by the data characteristic it has.
    package var type: MachineType
    /// Device Information 0x2A29, e.g. "SolidFocus".
    package var manufacturer: String?
    /// Device Information 0x2A24, e.g. "SF-Bike-M1".
    package var model: String?
    package var features: FitnessMachineFeature?
    /// 0x2ACC as read, for captures to record exactly what the machine said.
    package var featureBytes: [UInt8]?
    /// Supported Resistance Level Range (0x2AD6), when the machine has it.
    package var resistanceRange: SupportedRange?
    /// How the data and status notifications arrive (AcquireNotify or StartNotify), by characteristic.
    package var notifyPaths: [Characteristic: NotifyPath] = [:]

    /// How the data characteristic (Indoor Bike Data or Rower Data) is served: the one that
    /// carries the 4 Hz stream, so the one whose path decides what a notification costs.
    package var dataNotifyPath: NotifyPath? {
        notifyPaths[.indoorBikeData] ?? notifyPaths[.rowerData]
    }
}

public import FTMS

/// The machine a session belongs to, as the summary's `detail` names it.
public struct MachineIdentity: Sendable, Hashable, Codable {
    /// The Complete Local Name, e.g. `SF-Bike-0001`.
    public var name: String
    /// The Bluetooth address, e.g. `C0:11:22:33:44:01`: the key of a machine's checkpoint.
    public var address: String
    /// Device Information Model Number (0x2A24), e.g. `SF-Bike-M1`; `nil` until it is read.
    public var model: String?
    public var type: MachineType

    public init(name: String, address: String, model: String? = nil, type: MachineType) {
        self.name = name
        self.address = address
        self.model = model
        self.type = type
    }
}

/// Failures of the BlueZ client that are about Bluetooth rather than D-Bus.
public enum BlueZError: Error, Sendable, Equatable, CustomStringConvertible {
    case noAdapter
    case machineNotFound(String)

    public var description: String {
        switch self {
        case .noAdapter: "no Bluetooth adapter: is bluetoothd running and an adapter present?"
        case .machineNotFound(let machine): "no machine named or addressed '\(machine)' is known to BlueZ"
        }
    }
}

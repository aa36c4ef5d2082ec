/// Failures of the BlueZ client that are about Bluetooth rather than D-Bus.
package enum BlueZError: Error, Sendable, Equatable, CustomStringConvertible {
    case noAdapter
    case machineNotFound(String)

    package var description: String {
        switch self {
        case .noAdapter: "no Bluetooth adapter: is bluetoothd running and an adapter present?"
        case .machineNotFound(let machine): "no machine named or addressed '\(machine)' is known to BlueZ"
        }
    }
}

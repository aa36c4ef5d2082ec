/// Why a machine could not be connected or driven, each a clear one-line reason.
package enum LinkError: Error, Sendable, Equatable, CustomStringConvertible {
    case connectFailed(String)
    case servicesNeverResolved
    case disconnected
    case missingCharacteristic(String)
    case controlPointTimeout(operation: String)
    case controlPointRejected(operation: String, result: String)
    case writeFailed(operation: String, device: String, reason: String)
    case notReady(String)

    package var description: String {
        switch self {
        case .connectFailed(let reason): "connect failed: \(reason)"
        case .servicesNeverResolved: "the machine's services never resolved"
        case .disconnected: "the machine disconnected"
        case .missingCharacteristic(let what): "the machine has no \(what) characteristic"
        case .controlPointTimeout(let operation): "no Control Point response to \(operation)"
        case .controlPointRejected(let operation, let result): "the machine answered \(operation) with \(result)"
        case .writeFailed(let operation, let device, let reason): "\(operation) write on \(device) failed: \(reason)"
        case .notReady(let machine): "\(machine) is not connected yet"
        }
    }
}

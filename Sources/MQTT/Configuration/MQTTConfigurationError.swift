/// A configuration the client cannot use, said in one line.
public enum MQTTConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let reason): reason
        }
    }
}

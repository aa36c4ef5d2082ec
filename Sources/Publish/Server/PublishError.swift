/// Why a message was not published.
public enum PublishError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `hello` and `error` are written to single readers by the server itself.
    case readerLocalType(MessageType)

    public var description: String {
        switch self {
        case .readerLocalType(let type): "\(type) is written by the socket to one reader, not published"
        }
    }
}

/// contract §7's message types, by their wire names.
///
/// Open to types this build does not know (`other`), because contract §7's versioning rule is that
/// a new type is added without a version bump and old readers skip it; the daemon may publish
/// a type before this enum names it. Equality and hashing go by the wire name, so
/// `.other("sample")` is `.sample`.
public enum MessageType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The first line to every reader, and the reply to a `watch`: reader-local, never published.
    case hello
    /// A reader's bad input, just before it is closed: reader-local, never published.
    case error
    case machine
    case sessionState
    case sample
    case status
    case control
    case sessionSummary
    case upload
    case other(String)

    public init(rawValue: String) {
        switch rawValue {
        case "hello": self = .hello
        case "error": self = .error
        case "machine": self = .machine
        case "session_state": self = .sessionState
        case "sample": self = .sample
        case "status": self = .status
        case "control": self = .control
        case "session_summary": self = .sessionSummary
        case "upload": self = .upload
        default: self = .other(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .hello: "hello"
        case .error: "error"
        case .machine: "machine"
        case .sessionState: "session_state"
        case .sample: "sample"
        case .status: "status"
        case .control: "control"
        case .sessionSummary: "session_summary"
        case .upload: "upload"
        case .other(let name): name
        }
    }

    public var description: String { rawValue }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue == rhs.rawValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// Samples are superseded a fraction of a second later, so they are what a slow reader
    /// loses first; every other type carries a change a reader cannot rebuild (contract §7).
    var isDroppable: Bool { self == .sample }

    /// `hello` and `error` are written to one reader and carry the current `seq` instead of
    /// taking a new one, so publishing them would put a gap in every other reader's stream.
    var isReaderLocal: Bool { self == .hello || self == .error }

    /// `machine` and `session_state` lines are kept by ``ResyncState`` for readers that
    /// connect later, so they are encoded even when no reader is connected.
    var isKeptForResync: Bool { self == .machine || self == .sessionState }
}

/// A parsed JSON value, as much of one as the socket needs to read: the shape of a reader's
/// `watch` line and a payload's top-level `state`.
///
/// Numbers keep no value (nothing read here is numeric), so parsing a sample payload to check
/// it allocates only for its containers. Objects keep their members in order, duplicates
/// included, so a caller can refuse duplicates instead of silently taking one.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The members of an object, or nil.
    var members: [JSONMember]? {
        if case .object(let members) = self { members } else { nil }
    }
}

struct JSONMember: Sendable, Equatable {
    var key: String
    var value: JSONValue
}

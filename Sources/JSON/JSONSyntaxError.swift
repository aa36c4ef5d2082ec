/// Why bytes are not one JSON value: what was wrong and at which byte.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What a caller may want to answer differently. A duplicate key is well-formed JSON that
    /// this reader refuses (RFC 8259 leaves its meaning open), so a protocol can call it a bad
    /// request rather than "not JSON".
    public enum Kind: Sendable, Equatable {
        case malformed
        case duplicateKey
    }

    public var kind: Kind
    public var reason: String
    public var offset: Int

    public init(_ kind: Kind = .malformed, reason: String, offset: Int) {
        self.kind = kind
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "\(reason) at byte \(offset)" }
}

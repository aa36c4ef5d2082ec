/// Why bytes are not one JSON value: what was wrong and at which byte.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public var offset: Int

    public init(reason: String, offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "\(reason) at byte \(offset)" }
}

/// Why a payload on a floor topic is not the message its topic carries: not JSON, or a member
/// missing or of the wrong kind. Anyone on the broker can publish anything, so a bad message is
/// an error for the caller to count and drop, never a trap.
public struct FloorWireError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}

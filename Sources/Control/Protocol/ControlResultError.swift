/// Why a handler's result cannot go into an answer.
public struct ControlResultError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String

    public var description: String { "the result is not a JSON object: \(reason)" }
}

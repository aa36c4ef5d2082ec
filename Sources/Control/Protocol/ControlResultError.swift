/// Why a handler's result cannot go into an answer.
package struct ControlResultError: Error, Sendable, Equatable, CustomStringConvertible {
    package var reason: String

    package var description: String { "the result is not a JSON object: \(reason)" }
}

/// Why a line is not one JSON value: what was wrong and at which byte.
struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    var reason: String
    var offset: Int

    var description: String { "\(reason) at byte \(offset)" }
}

/// Why bytes are not one JSON value: a reason and the byte offset where parsing stopped.
struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    var reason: String
    var offset: Int

    var description: String { "\(reason) at byte \(offset)" }
}

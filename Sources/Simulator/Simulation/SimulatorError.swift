/// A simulator that cannot start or was configured wrongly, as one line.
public struct SimulatorError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// What is wrong with one value, before the parser knows which file and key it came from.
struct ValueProblem: Error {
    var kind: ConfigError.Kind
    var message: String

    static func wrongType(_ expected: String, got value: ConfigValue) -> ValueProblem {
        ValueProblem(kind: .wrongType, message: "must be \(expected), got \(value.shown)")
    }

    static func invalid(_ message: String) -> ValueProblem {
        ValueProblem(kind: .invalidValue, message: message)
    }
}

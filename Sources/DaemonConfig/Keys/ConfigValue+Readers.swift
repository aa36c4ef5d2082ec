/// The typed reads the key table is built from. Each one names what it wanted and what it
/// got, so an error reads "must be …, got …" whatever the key.
extension ConfigValue {
    /// The largest duration any key takes: a year. Larger values are typos, and
    /// `Duration.seconds(1e300)` would trap.
    static let maximumSeconds = 31_536_000

    func string() throws(ValueProblem) -> String {
        guard case .string(let text) = self else { throw .wrongType("a string", got: self) }
        return text
    }

    func boolean() throws(ValueProblem) -> Bool {
        guard case .boolean(let value) = self else { throw .wrongType("true or false", got: self) }
        return value
    }

    func integer(in range: ClosedRange<Int>) throws(ValueProblem) -> Int {
        let expected = "a whole number from \(range.lowerBound) to \(range.upperBound)"
        guard case .integer(let value) = self else { throw .wrongType(expected, got: self) }
        guard range.contains(value) else { throw .invalid("must be \(expected), got \(value)") }
        return value
    }

    /// A number in the half-open-below range `(0, upper]`; an integer is accepted as a number.
    func fraction(upTo upper: Double) throws(ValueProblem) -> Double {
        let expected = "a number greater than 0 and at most \(upper)"
        let number = try number(expected)
        guard number.isFinite, number > 0, number <= upper else { throw .invalid("must be \(expected), got \(shown)") }
        return number
    }

    /// Seconds, as an integer or a float, kept to the millisecond so that a rendered config
    /// reads back exactly.
    func seconds() throws(ValueProblem) -> Duration {
        let expected = "a number of seconds greater than 0"
        let number = try number(expected)
        guard number.isFinite, number > 0 else { throw .invalid("must be \(expected), got \(shown)") }
        guard number <= Double(Self.maximumSeconds) else {
            throw .invalid("must be at most \(Self.maximumSeconds) seconds (a year), got \(shown)")
        }
        let milliseconds = (number * 1000).rounded()
        guard milliseconds >= 1 else { throw .invalid("must be at least 0.001 seconds (the resolution is 1 ms), got \(shown)") }
        return .milliseconds(Int64(milliseconds))
    }

    /// A number in `range`; an integer is accepted as a number.
    func number(in range: ClosedRange<Double>) throws(ValueProblem) -> Double {
        let expected = "a number from \(range.lowerBound) to \(range.upperBound)"
        let number = try number(expected)
        guard number.isFinite, range.contains(number) else { throw .invalid("must be \(expected), got \(shown)") }
        return number
    }

    /// An integer or a float, as a `Double`.
    private func number(_ expected: String) throws(ValueProblem) -> Double {
        switch self {
        case .integer(let value): Double(value)
        case .float(let value): value
        default: throw .wrongType(expected, got: self)
        }
    }

    /// An array of strings, each checked by `element`, with no entry twice.
    func strings(_ element: (String) throws(ValueProblem) -> Void) throws(ValueProblem) -> [String] {
        guard case .array(let values) = self else { throw .wrongType("an array of strings", got: self) }
        var result: [String] = []
        for (index, value) in values.enumerated() {
            guard case .string(let text) = value else {
                throw .wrongType("an array of strings; entry \(index + 1)", got: value)
            }
            do {
                try element(text)
            } catch {
                throw .invalid("entry \(index + 1) \(error.message)")
            }
            guard !result.contains(text) else { throw .invalid("entry \(index + 1) repeats \(OneLine.quoted(text))") }
            result.append(text)
        }
        return result
    }

    /// A file mode: a string of octal digits (`"0660"`) or an integer (write it as `0o660`:
    /// TOML's plain `660` is decimal).
    func fileMode() throws(ValueProblem) -> UInt32 {
        let expected = "a file mode such as \"0660\" or 0o660"
        let mode: UInt32
        switch self {
        case .string(let text):
            let digits = text.hasPrefix("0o") ? text.dropFirst(2) : Substring(text)
            guard (3...4).contains(digits.count), digits.allSatisfy({ ("0"..."7").contains($0) }),
                  let parsed = UInt32(digits, radix: 8), parsed <= 0o777
            else { throw .invalid("must be \(expected) (octal, at most 0777), got \(shown)") }
            mode = parsed
        case .integer(let value):
            guard (0...0o777).contains(value) else {
                throw .invalid("must be \(expected), at most 0o777 (TOML's 660 is decimal: write 0o660), got \(value)")
            }
            mode = UInt32(value)
        default:
            throw .wrongType(expected, got: self)
        }
        guard mode & 0o600 == 0o600 else {
            throw .invalid("must let the owner read and write (0600), got \(FileMode.octal(mode))")
        }
        return mode
    }
}

/// How modes are written: four octal digits, as `chmod` and `ls -l`'s users say them.
enum FileMode {
    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

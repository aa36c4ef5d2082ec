import Clocks

/// Values written as TOML, the inverse of the key table's reads.
enum TOMLLiteral {
    static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    static func strings(_ values: [String]) -> String {
        "[" + values.map(string).joined(separator: ", ") + "]"
    }

    /// Whole seconds as an integer, otherwise a decimal to the millisecond (the precision
    /// ``ConfigValue/seconds()`` keeps).
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.milliseconds
        let whole = milliseconds / 1000
        let fraction = abs(milliseconds % 1000)
        guard fraction != 0 else { return String(whole) }
        var decimals = String(fraction)
        decimals = String(repeating: "0", count: 3 - decimals.count) + decimals
        while decimals.hasSuffix("0") { decimals.removeLast() }
        return (milliseconds < 0 && whole == 0 ? "-" : "") + "\(whole).\(decimals)"
    }

    static func float(_ value: Double) -> String {
        value.isFinite ? String(value) : "nan"
    }

    static func mode(_ mode: UInt32) -> String {
        string(FileMode.octal(mode))
    }
}

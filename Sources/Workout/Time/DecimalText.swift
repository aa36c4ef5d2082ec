import CivilTime

/// Fixed-width decimal text, written and read, for the date formats (no Foundation).
enum DecimalText {
    static func appendPadded(_ value: UInt64, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.count < width { text.append(String(repeating: "0", count: width - digits.count)) }
        text.append(digits)
    }
}

/// A cursor over ASCII bytes for the fixed-width date formats.
struct DigitScanner {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var atEnd: Bool { position == bytes.count }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
        position += 1
        return true
    }

    mutating func digit() -> Int64? {
        guard position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) else { return nil }
        defer { position += 1 }
        return Int64(bytes[position] - UInt8(ascii: "0"))
    }

    /// `YYYY-MM-DD` as days since 1970-01-01; `nil` unless it is a real day.
    mutating func date() -> Int64? {
        guard let year = number(digits: 4), take("-"), let month = number(digits: 2), take("-"),
              let day = number(digits: 2), CivilDate.isValid(year: year, month: month, day: day)
        else { return nil }
        return CivilDate.days(year: year, month: month, day: day)
    }

    mutating func number(digits count: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<count {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }
}

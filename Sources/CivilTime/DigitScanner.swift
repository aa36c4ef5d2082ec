/// A cursor over ASCII bytes, for the fixed-width date and time texts (no Foundation).
struct DigitScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    var atEnd: Bool { position == bytes.count }

    /// Takes the next byte if it is one of `characters`.
    mutating func take(_ characters: Unicode.Scalar...) -> Bool {
        guard position < bytes.count, characters.contains(where: { UInt8(ascii: $0) == bytes[position] }) else { return false }
        position += 1
        return true
    }

    /// The next byte, taken if it is one of `characters`.
    mutating func takeOne(of characters: Unicode.Scalar...) -> Unicode.Scalar? {
        guard position < bytes.count, let found = characters.first(where: { UInt8(ascii: $0) == bytes[position] }) else { return nil }
        position += 1
        return found
    }

    mutating func digit() -> Int64? {
        guard position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 else { return nil }
        defer { position += 1 }
        return Int64(bytes[position] &- UInt8(ascii: "0"))
    }

    /// Exactly `count` digits.
    mutating func number(digits count: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<count {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// `YYYY-MM-DD` as days since 1970-01-01; `nil` unless it is a real day.
    mutating func date() -> Int64? {
        guard let year = number(digits: 4), take("-"), let month = number(digits: 2), take("-"),
              let day = number(digits: 2), CivilDate.isValid(year: year, month: month, day: day)
        else { return nil }
        return CivilDate.days(year: year, month: month, day: day)
    }
}

/// Fixed-width decimal text, for the date and time formats.
enum DecimalText {
    static func appendPadded(_ value: UInt64, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.count < width { text.append(String(repeating: "0", count: width - digits.count)) }
        text.append(digits)
    }

    /// Runs `body` on the UTF-8 bytes of `text`.
    static func withBytes<T>(of text: some StringProtocol, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        var text = String(text)
        return text.withUTF8(body)
    }
}

extension UTCTime {
    /// `2026-11-21T08:00:00Z`: ISO 8601 / RFC 3339 in UTC, whole seconds (seed 000's
    /// `started_at` / `ended_at`). Milliseconds are dropped, rounding down.
    public var iso8601: String {
        var text = ""
        text.reserveCapacity(20)
        let seconds = secondsSince1970
        let days = CivilDate.floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.date(days: days)
        if year < 0 { text.append("-") }
        Self.append(year.magnitude, width: 4, to: &text)
        text.append("-")
        Self.append(UInt64(month), width: 2, to: &text)
        text.append("-")
        Self.append(UInt64(day), width: 2, to: &text)
        text.append("T")
        Self.append(UInt64(secondOfDay / 3600), width: 2, to: &text)
        text.append(":")
        Self.append(UInt64(secondOfDay / 60 % 60), width: 2, to: &text)
        text.append(":")
        Self.append(UInt64(secondOfDay % 60), width: 2, to: &text)
        text.append("Z")
        return text
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS`, optional fraction, then `Z` or `±HH:MM`: what this module
    /// writes and what a backend echoes back. Anything else is `nil`, never a guess.
    public init?(iso8601 text: some StringProtocol) {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.take("-"),
              let month = scanner.number(digits: 2), scanner.take("-"),
              let day = scanner.number(digits: 2), scanner.take("T") || scanner.take("t") || scanner.take(" "),
              let hour = scanner.number(digits: 2), scanner.take(":"),
              let minute = scanner.number(digits: 2), scanner.take(":"),
              let second = scanner.number(digits: 2),
              CivilDate.isValid(year: year, month: month, day: day),
              hour < 24, minute < 60, second < 61
        else { return nil }
        var milliseconds: Int64 = 0
        if scanner.take(".") {
            var scale: Int64 = 100
            var digits = 0
            while let digit = scanner.digit() {
                milliseconds += digit * scale
                scale /= 10
                digits += 1
            }
            guard digits > 0 else { return nil }
        }
        var offsetSeconds: Int64 = 0
        if scanner.take("Z") || scanner.take("z") {
            offsetSeconds = 0
        } else {
            let sign: Int64
            if scanner.take("+") { sign = 1 } else if scanner.take("-") { sign = -1 } else { return nil }
            guard let offsetHours = scanner.number(digits: 2), scanner.take(":"),
                  let offsetMinutes = scanner.number(digits: 2), offsetHours < 24, offsetMinutes < 60
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        }
        guard scanner.atEnd else { return nil }
        let days = CivilDate.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        self.init(millisecondsSince1970: seconds * 1000 + milliseconds)
    }

    static func append(_ value: UInt64, width: Int, to text: inout String) {
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

    mutating func number(digits count: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<count {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }
}

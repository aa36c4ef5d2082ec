/// An instant read from an RFC 3339 / ISO 8601 timestamp: `2025-12-24T07:30:00Z`,
/// `2025-12-24T08:30:00.250+01:00`.
///
/// A zone designator is required: a session time without one could be any of 27 hours, and
/// the backend must not guess the gateway's zone. Hand-written rather than a formatter so that
/// what is accepted is exactly what is documented (docs/backend-api.md).
struct ISO8601Time: Sendable, Hashable {
    /// Seconds since 1970-01-01T00:00:00Z, fraction included.
    let secondsSince1970: Double

    init?(_ text: String) {
        let bytes = Array(text.utf8)
        var reader = DigitReader(bytes: bytes)
        guard let year = reader.number(4), reader.take("-"), let month = reader.number(2), reader.take("-"),
            let day = reader.number(2), reader.take("T") || reader.take("t"),
            let hour = reader.number(2), reader.take(":"), let minute = reader.number(2), reader.take(":"),
            let second = reader.number(2),
            let date = CivilDay(year: year, month: month, day: day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var fraction = 0.0
        if reader.take(".") {
            guard let digits = reader.fraction() else { return nil }
            fraction = digits
        }
        guard let offset = reader.zoneOffset(), reader.atEnd else { return nil }
        let whole = date.number * 86_400 + hour * 3600 + minute * 60 + second - offset
        secondsSince1970 = Double(whole) + fraction
    }
}

/// Cursor over ASCII bytes for the timestamp grammar.
private struct DigitReader {
    let bytes: [UInt8]
    var index = 0

    var atEnd: Bool { index == bytes.count }

    mutating func take(_ character: Character) -> Bool {
        guard index < bytes.count, let ascii = character.asciiValue, bytes[index] == ascii else { return false }
        index += 1
        return true
    }

    mutating func number(_ width: Int) -> Int64? {
        guard index + width <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[index..<index + width] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        index += width
        return value
    }

    /// One or more digits after the decimal point, as a fraction of a second.
    mutating func fraction() -> Double? {
        var scale = 0.1
        var value = 0.0
        let start = index
        while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
            value += Double(bytes[index] - 0x30) * scale
            scale /= 10
            index += 1
        }
        return index > start ? value : nil
    }

    /// `Z` → 0; `±HH:MM` or `±HHMM` → seconds east of UTC.
    mutating func zoneOffset() -> Int64? {
        if take("Z") || take("z") { return 0 }
        let sign: Int64
        if take("+") {
            sign = 1
        } else if take("-") {
            sign = -1
        } else {
            return nil
        }
        guard let hours = number(2) else { return nil }
        _ = take(":")
        guard let minutes = number(2), hours < 24, minutes < 60 else { return nil }
        return sign * (hours * 3600 + minutes * 60)
    }
}

extension ISO8601Time {
    /// `YYYY-MM-DDTHH:MM:SSZ` for whole seconds since 1970 (server-made times: `created_at`).
    static func format(secondsSince1970 seconds: Int64) -> String {
        let day = CivilDay(secondsSince1970: seconds, offset: 0)
        let secondOfDay = seconds - day.number * 86_400
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(day)T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }
}

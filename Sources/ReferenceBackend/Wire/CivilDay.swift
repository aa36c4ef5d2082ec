import CivilTime

/// Days since 1970-01-01 in the proleptic Gregorian calendar, and back.
///
/// The arithmetic is ``CivilDate``'s, the product's one calendar.
struct CivilDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    let number: Int64

    init(number: Int64) {
        self.number = number
    }

    /// `nil` for days that do not exist (Feb 30, month 13).
    init?(year: Int64, month: Int64, day: Int64) {
        guard CivilDate.isValid(year: year, month: month, day: day) else { return nil }
        number = CivilDate.days(year: year, month: month, day: day)
    }

    /// Parses `YYYY-MM-DD`.
    init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
            let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The day containing `seconds` since 1970 at a fixed UTC offset.
    init(secondsSince1970 seconds: Int64, offset: Int64) {
        let local = seconds + offset
        number = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
    }

    var components: (year: Int64, month: Int64, day: Int64) {
        CivilDate.date(days: number)
    }

    /// `YYYY-MM-DD`.
    var description: String {
        let (year, month, day) = components
        return Self.padded(year, 4) + "-" + Self.padded(month, 2) + "-" + Self.padded(day, 2)
    }

    static func < (lhs: CivilDay, rhs: CivilDay) -> Bool {
        lhs.number < rhs.number
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let day = CivilDay(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a YYYY-MM-DD date: \(text)")
        }
        self = day
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value.magnitude)
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

/// A calendar day in some time zone, as `YYYY-MM-DD` (SolidFocus's `last_workout_date`,
/// `2025-12-24`): the gateway's stats and the reference backend's alike.
public struct LocalDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Days since 1970-01-01 in the proleptic Gregorian calendar.
    public let dayNumber: Int64

    public init(dayNumber: Int64) {
        self.dayNumber = dayNumber
    }

    /// `nil` for a day that does not exist (Feb 30, month 13).
    public init?(year: Int, month: Int, day: Int) {
        guard CivilDate.isValid(year: Int64(year), month: Int64(month), day: Int64(day)) else { return nil }
        dayNumber = CivilDate.days(year: Int64(year), month: Int64(month), day: Int64(day))
    }

    /// The day containing `seconds` since 1970 at a fixed UTC offset (seconds east).
    public init(secondsSince1970 seconds: Int64, offset: Int64) {
        let (local, overflow) = seconds.addingReportingOverflow(offset)
        dayNumber = CivilDate.floorDivide(overflow ? (offset > 0 ? .max : .min) : local, 86_400)
    }

    /// Parses `YYYY-MM-DD`.
    public init?(_ text: some StringProtocol) {
        guard let days = DecimalText.withBytes(of: text, { bytes -> Int64? in
            var scanner = DigitScanner(bytes)
            guard let days = scanner.date(), scanner.atEnd else { return nil }
            return days
        }) else { return nil }
        dayNumber = days
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        let (year, month, day) = CivilDate.date(days: dayNumber)
        var text = year < 0 ? "-" : ""
        DecimalText.appendPadded(year.magnitude, width: 4, to: &text)
        text.append("-")
        DecimalText.appendPadded(UInt64(month), width: 2, to: &text)
        text.append("-")
        DecimalText.appendPadded(UInt64(day), width: 2, to: &text)
        return text
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        lhs.dayNumber < rhs.dayNumber
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = LocalDate(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a YYYY-MM-DD date: \(text)")
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Days since 1970-01-01 ⇄ proleptic Gregorian year, month, day: the one calendar of the
/// product (summary times and stats days, capture headers, the reference backend's dates).
///
/// Howard Hinnant's `days_from_civil` / `civil_from_days`, with no tables and no Foundation,
/// so times format the same on every machine. Exact within ``yearLimit`` years of
/// the epoch, which covers every millisecond an Int64 can hold; beyond it values are clamped
/// rather than allowed to overflow.
public enum CivilDate {
    public static let yearLimit: Int64 = 1 << 40
    public static let dayLimit: Int64 = yearLimit * 365

    public static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let year = min(max(year, -yearLimit), yearLimit)
        let month = min(max(month, 1), 12)
        let day = min(max(day, 1), 31)
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    public static func date(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = min(max(days, -dayLimit), dayLimit) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (era * 400 + yearOfEra + (month <= 2 ? 1 : 0), month, day)
    }

    public static func isValid(year: Int64, month: Int64, day: Int64) -> Bool {
        guard (-yearLimit...yearLimit).contains(year), (1...12).contains(month), (1...31).contains(day) else { return false }
        let next = month == 12 ? days(year: year + 1, month: 1, day: 1) : days(year: year, month: month + 1, day: 1)
        return day <= next - days(year: year, month: month, day: 1)
    }

    /// `floor(a / b)` for a positive `b`.
    public static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return a % b < 0 ? quotient - 1 : quotient
    }
}

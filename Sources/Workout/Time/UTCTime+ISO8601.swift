import CivilTime

extension UTCTime {
    /// `2026-11-21T08:00:00Z`: ISO 8601 / RFC 3339 in UTC, whole seconds (SolidFocus's
    /// `started_at` / `ended_at`). Milliseconds are dropped, rounding down.
    public var iso8601: String {
        let seconds = secondsSince1970
        let days = CivilDate.floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        var text = LocalDate(dayNumber: days).description
        text.append("T")
        DecimalText.appendPadded(UInt64(secondOfDay / 3600), width: 2, to: &text)
        text.append(":")
        DecimalText.appendPadded(UInt64(secondOfDay / 60 % 60), width: 2, to: &text)
        text.append(":")
        DecimalText.appendPadded(UInt64(secondOfDay % 60), width: 2, to: &text)
        text.append("Z")
        return text
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS`, optional fraction, then `Z` or `±HH:MM`: what this module
    /// writes and what a backend echoes back. Anything else is `nil`, never a guess.
    public init?(iso8601 text: some StringProtocol) {
        var scanner = DigitScanner(Array(text.utf8))
        guard let days = scanner.date(), scanner.take("T") || scanner.take("t") || scanner.take(" "),
              let hour = scanner.number(digits: 2), scanner.take(":"),
              let minute = scanner.number(digits: 2), scanner.take(":"),
              let second = scanner.number(digits: 2),
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
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        self.init(millisecondsSince1970: seconds * 1000 + milliseconds)
    }
}

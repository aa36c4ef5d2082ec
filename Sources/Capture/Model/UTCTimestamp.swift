import CivilTime
import FTMS
import JSON

/// ISO 8601 UTC instants ⇄ time since the Unix epoch, for the `.ftmscap` header's `start`.
///
/// Written by hand because the module avoids Foundation (like FTMS, it runs inside replay's
/// hot loop and in the fuzzer), and only one calendar is involved: proleptic Gregorian UTC.
enum UTCTimestamp {
    /// `2026-11-21T08:00:00.25Z`; `nil` outside years 0000–9999, which ISO 8601 cannot spell
    /// in this form.
    static func append(_ sinceEpoch: Duration, to buffer: inout JSONBuffer) -> Bool {
        let attoseconds = sinceEpoch.attoseconds
        let (secondsRounded, fraction) = floorDivide(attoseconds, DecimalSeconds.attosecondsPerSecond)
        let (days, secondOfDay) = floorDivide(secondsRounded, 86_400)
        guard let dayCount = Int64(exactly: days) else { return false }
        let (year, month, day) = CivilDate.date(days: dayCount)
        guard (0...9999).contains(year) else { return false }
        buffer.append(UInt8(ascii: "\""))
        appendPadded(Int(year), width: 4, to: &buffer)
        buffer.append(UInt8(ascii: "-"))
        appendPadded(Int(month), width: 2, to: &buffer)
        buffer.append(UInt8(ascii: "-"))
        appendPadded(Int(day), width: 2, to: &buffer)
        buffer.append(UInt8(ascii: "T"))
        let second = Int(secondOfDay)
        appendPadded(second / 3600, width: 2, to: &buffer)
        buffer.append(UInt8(ascii: ":"))
        appendPadded(second / 60 % 60, width: 2, to: &buffer)
        buffer.append(UInt8(ascii: ":"))
        appendPadded(second % 60, width: 2, to: &buffer)
        DecimalSeconds.appendFraction(UInt64(fraction), digits: 18, to: &buffer)
        buffer.append("Z\"")
        return true
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)`, `T` or a space between date and time;
    /// a missing zone is read as UTC.
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Duration? {
        var cursor = 0
        func number(_ width: Int) -> Int? {
            guard cursor + width <= text.count else { return nil }
            var value = 0
            for _ in 0..<width {
                let digit = text[cursor] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
                cursor += 1
            }
            return value
        }
        func skip(_ characters: UInt8...) -> Bool {
            guard cursor < text.count, characters.contains(text[cursor]) else { return false }
            cursor += 1
            return true
        }
        guard let year = number(4), skip(UInt8(ascii: "-")), let month = number(2), skip(UInt8(ascii: "-")),
            let day = number(2), skip(UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")),
            let hour = number(2), skip(UInt8(ascii: ":")), let minute = number(2), skip(UInt8(ascii: ":")),
            let second = number(2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction: Int128 = 0
        if skip(UInt8(ascii: "."), UInt8(ascii: ",")) {
            var scale = DecimalSeconds.attosecondsPerSecond
            var digits = 0
            while cursor < text.count, text[cursor] &- UInt8(ascii: "0") < 10 {
                scale /= 10
                fraction += Int128(text[cursor] &- UInt8(ascii: "0")) * scale
                digits += 1
                cursor += 1
            }
            guard digits > 0 else { return nil }
        }
        var offsetSeconds = 0
        if skip(UInt8(ascii: "Z"), UInt8(ascii: "z")) {
        } else if cursor < text.count, text[cursor] == UInt8(ascii: "+") || text[cursor] == UInt8(ascii: "-") {
            let sign = text[cursor] == UInt8(ascii: "-") ? -1 : 1
            cursor += 1
            guard let hours = number(2) else { return nil }
            _ = skip(UInt8(ascii: ":"))
            guard let minutes = number(2), hours < 24, minutes < 60 else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        }
        guard cursor == text.count else { return nil }
        let days = CivilDate.days(year: Int64(year), month: Int64(month), day: Int64(day))
        let seconds = Int128(days) * 86_400 + Int128(hour * 3600 + minute * 60 + second - offsetSeconds)
        return Duration(attoseconds: seconds * DecimalSeconds.attosecondsPerSecond + fraction)
    }

    private static func floorDivide(_ value: Int128, _ divisor: Int128) -> (Int128, Int128) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    private static func appendPadded(_ value: Int, width: Int, to buffer: inout JSONBuffer) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            buffer.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}

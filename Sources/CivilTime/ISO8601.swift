/// ISO 8601 date-times in UTC ⇄ time since the Unix epoch: the product's one parser and one
/// formatter (summaries' `started_at`, capture headers' `start`, the reference backend's
/// session times, the store's and the journal's dates).
///
/// Hand-written because FTMS, Workout and Capture avoid Foundation, and because what is
/// accepted must be exactly what the docs say: Foundation's formatters differ between
/// platforms and versions. Times are exact (`Duration`'s attoseconds), never a `Double` on the
/// way, so a capture's start reads back as it was written.
public enum ISO8601 {
    /// What a parse accepts besides `YYYY-MM-DDTHH:MM:SS` (a real day; seconds to 60, for a
    /// leap second), an optional fraction of any number of digits, and a zone: `Z`, `±HH:MM` or
    /// `±HHMM` (either case for `T` and `Z`).
    public struct Grammar: Sendable, Hashable {
        /// A space between date and time, a comma before the fraction: ISO 8601 allows both,
        /// RFC 3339's grammar neither.
        public var spaceAndComma: Bool
        /// No zone reads as UTC. Otherwise a time without one is refused: it could be any of 27
        /// hours, and a reader must not guess the writer's zone.
        public var zoneIsOptional: Bool

        public init(spaceAndComma: Bool, zoneIsOptional: Bool) {
            self.spaceAndComma = spaceAndComma
            self.zoneIsOptional = zoneIsOptional
        }

        /// RFC 3339, as the reference backend documents its times (docs/backend-api.md):
        /// what a client sends it must be what the real backend takes.
        public static let rfc3339 = Grammar(spaceAndComma: false, zoneIsOptional: false)
        /// What the gateway reads back (its own dates, a backend's echo, config and file names).
        public static let standard = Grammar(spaceAndComma: true, zoneIsOptional: false)
        /// Capture files of other tools (docs/ftmscap.md): a missing zone is UTC.
        public static let zoneOptional = Grammar(spaceAndComma: true, zoneIsOptional: true)
    }

    static let attosecondsPerSecond: Int128 = 1_000_000_000_000_000_000

    /// The instant `text` names, as time since 1970-01-01T00:00:00Z; `nil` for anything
    /// `grammar` does not accept, never a guess.
    public static func parse(_ text: some StringProtocol, _ grammar: Grammar = .standard) -> Duration? {
        DecimalText.withBytes(of: text) { parse($0, grammar) }
    }

    /// ``parse(_:_:)`` on UTF-8 bytes (the capture reader's JSON string, in place).
    public static func parse(_ text: UnsafeBufferPointer<UInt8>, _ grammar: Grammar = .standard) -> Duration? {
        var scanner = DigitScanner(text)
        guard let days = scanner.date(),
              grammar.spaceAndComma ? scanner.take("T", "t", " ") : scanner.take("T", "t"),
              let hour = scanner.number(digits: 2), scanner.take(":"),
              let minute = scanner.number(digits: 2), scanner.take(":"),
              let second = scanner.number(digits: 2),
              hour < 24, minute < 60, second <= 60
        else { return nil }
        var fraction: Int128 = 0
        if grammar.spaceAndComma ? scanner.take(".", ",") : scanner.take(".") {
            var scale = attosecondsPerSecond
            var digits = 0
            while let digit = scanner.digit() {
                scale /= 10
                fraction += Int128(digit) * scale
                digits += 1
            }
            guard digits > 0 else { return nil }
        }
        var offset: Int64 = 0
        if scanner.take("Z", "z") {
            offset = 0
        } else if let sign = scanner.takeOne(of: "+", "-") {
            guard let hours = scanner.number(digits: 2) else { return nil }
            _ = scanner.take(":")
            guard let minutes = scanner.number(digits: 2), hours < 24, minutes < 60 else { return nil }
            offset = (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
        } else if !grammar.zoneIsOptional {
            return nil
        }
        guard scanner.atEnd else { return nil }
        let seconds = Int128(days) * 86_400 + Int128(hour * 3600 + minute * 60 + second - offset)
        return Duration(attoseconds: seconds * attosecondsPerSecond + fraction)
    }

    /// `2026-11-21T08:00:00Z` for whole seconds since the epoch. A year outside 0000–9999 is
    /// written with as many digits as it takes (and a `-` before year 0), never clipped.
    public static func string(secondsSince1970 seconds: Int64) -> String {
        string(seconds: seconds, fraction: 0)
    }

    /// `2026-11-21T08:00:00.25Z`: as many fraction digits as the instant needs, none for a
    /// whole second; or exactly `fractionDigits` (1 to 18), cut rather than rounded
    /// (`2026-11-21T08:00:00.250Z` with 3), for text that lines up.
    public static func string(_ sinceEpoch: Duration, fractionDigits: Int? = nil) -> String {
        let (seconds, fraction) = floorDivide(sinceEpoch.attoseconds, attosecondsPerSecond)
        return string(seconds: Int64(clamping: seconds), fraction: fraction, digits: fractionDigits.map { min(max($0, 1), 18) })
    }

    /// The instants ``string(_:)`` writes with a four-digit year, the form every reader takes:
    /// 0000-01-01T00:00:00Z up to the end of 9999.
    public static let fourDigitYears: Range<Duration> =
        .seconds(CivilDate.days(year: 0, month: 1, day: 1) * 86_400) ..< .seconds(CivilDate.days(year: 10_000, month: 1, day: 1) * 86_400)

    private static func string(seconds: Int64, fraction: Int128, digits: Int? = nil) -> String {
        let days = CivilDate.floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        var text = LocalDate(dayNumber: days).description
        text.append("T")
        DecimalText.appendPadded(UInt64(secondOfDay / 3600), width: 2, to: &text)
        text.append(":")
        DecimalText.appendPadded(UInt64(secondOfDay / 60 % 60), width: 2, to: &text)
        text.append(":")
        DecimalText.appendPadded(UInt64(secondOfDay % 60), width: 2, to: &text)
        if fraction != 0 || digits != nil {
            var decimals = String(UInt64(fraction))
            decimals = String(repeating: "0", count: 18 - decimals.count) + decimals
            if let digits {
                decimals.removeLast(18 - digits)
            } else {
                while decimals.last == "0" { decimals.removeLast() }
            }
            text.append(".")
            text.append(decimals)
        }
        text.append("Z")
        return text
    }

    private static func floorDivide(_ value: Int128, _ divisor: Int128) -> (Int128, Int128) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}

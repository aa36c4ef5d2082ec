import CivilTime
import DeterministicRandom
import Foundation
import Testing

/// The one ISO 8601 parser and formatter, against every form the three it replaced accepted
/// (the engine's `UTCTime`, the capture header's `start`, the reference backend's session
/// times) and against Foundation's formatter.
@Suite("ISO 8601")
struct ISO8601Tests {
    /// `text` read in `grammar` is `seconds` (and `attoseconds`) since the epoch.
    struct Vector: Sendable, CustomTestStringConvertible {
        var text: String
        var seconds: Int64
        var attoseconds: Int64 = 0
        var testDescription: String { text }
        var duration: Duration { .seconds(seconds) + Duration(attoseconds: Int128(attoseconds)) }
    }

    /// Accepted by every grammar: the RFC 3339 forms (either case for `T` and `Z`, `±HH:MM`
    /// and `±HHMM`, fractions of any length, leap days, before 1970).
    static let everywhere: [Vector] = [
        Vector(text: "1970-01-01T00:00:00Z", seconds: 0),
        Vector(text: "2000-02-29T00:00:00Z", seconds: 951_782_400),
        Vector(text: "2026-11-21T08:00:00Z", seconds: 1_795_248_000),
        Vector(text: "2100-02-28T23:59:59Z", seconds: 4_107_542_399),
        Vector(text: "1969-12-31T23:59:59Z", seconds: -1),
        Vector(text: "9999-12-31T23:59:59Z", seconds: 253_402_300_799),
        Vector(text: "0000-01-01T00:00:00Z", seconds: -62_167_219_200),
        Vector(text: "2025-12-24T07:30:00Z", seconds: 1_766_561_400),
        Vector(text: "2025-12-24T08:30:00+01:00", seconds: 1_766_561_400),
        Vector(text: "2025-12-24T02:00:00-0530", seconds: 1_766_561_400),
        Vector(text: "2026-11-21T16:00:00+08:00", seconds: 1_795_248_000),
        Vector(text: "2026-11-21T03:00:00-05:00", seconds: 1_795_248_000),
        Vector(text: "2025-12-24t07:30:00.250z", seconds: 1_766_561_400, attoseconds: 250_000_000_000_000_000),
        Vector(text: "2026-11-21T08:00:00.25Z", seconds: 1_795_248_000, attoseconds: 250_000_000_000_000_000),
        Vector(text: "1969-12-31T23:59:59.5Z", seconds: -1, attoseconds: 500_000_000_000_000_000),
        Vector(text: "2024-02-29T12:00:00Z", seconds: 1_709_208_000),
        Vector(text: "2024-02-29T23:59:59.999999Z", seconds: 1_709_251_199, attoseconds: 999_999_000_000_000_000),
        Vector(text: "2026-11-21T08:00:00.123456789012345678901Z", seconds: 1_795_248_000, attoseconds: 123_456_789_012_345_678),
        Vector(text: "2016-12-31T23:59:60Z", seconds: 1_483_228_800),
    ]

    /// ISO 8601 but not RFC 3339's grammar: a space between date and time, a decimal comma.
    static let notRFC3339: [Vector] = [
        Vector(text: "2025-12-24 07:30:00Z", seconds: 1_766_561_400),
        Vector(text: "2026-11-21 09:00:00.5+01:00", seconds: 1_795_248_000, attoseconds: 500_000_000_000_000_000),
        Vector(text: "2026-11-21T08:00:00,75Z", seconds: 1_795_248_000, attoseconds: 750_000_000_000_000_000),
    ]

    /// No zone: UTC in capture headers, refused everywhere else.
    static let zoneless: [Vector] = [
        Vector(text: "2025-12-24T07:30:00", seconds: 1_766_561_400),
        Vector(text: "2026-11-21 08:00:00.5", seconds: 1_795_248_000, attoseconds: 500_000_000_000_000_000),
    ]

    /// Not a time in any grammar: impossible days and times, half a zone, junk.
    static let never = [
        "", "yesterday", "2025-12-24", "21/11/2026 08:00", "2025-02-29T00:00:00Z", "2026-02-30T00:00:00Z",
        "2025-04-31T00:00:00Z", "2025-13-01T00:00:00Z", "2025-00-10T00:00:00Z", "2025-12-24T24:00:00Z",
        "2025-12-24T07:60:00Z", "2025-12-24T07:30:61Z", "2025-12-24T07:30:00.Z", "2025-12-24T07:30:00+25:00",
        "2025-12-24T07:30:00+01:60", "2025-12-24T07:30:00+1", "2025-12-24T07:30:00Zjunk", "2025-12-24T7:30:00Z",
        "2025-1-24T07:30:00Z", "+2025-12-24T07:30:00Z", "2025-12-24T07:30Z", "2025-12-24X07:30:00Z",
        "2025-12-24T07:30:00 Z", "２０２５-12-24T07:30:00Z",
    ]

    @Test(arguments: everywhere)
    func acceptedEverywhere(_ vector: Vector) {
        for grammar in [ISO8601.Grammar.rfc3339, .standard, .zoneOptional] {
            #expect(ISO8601.parse(vector.text, grammar) == vector.duration)
        }
    }

    @Test(arguments: notRFC3339)
    func iso8601ButNotRFC3339(_ vector: Vector) {
        #expect(ISO8601.parse(vector.text, .rfc3339) == nil)
        #expect(ISO8601.parse(vector.text, .standard) == vector.duration)
        #expect(ISO8601.parse(vector.text, .zoneOptional) == vector.duration)
    }

    @Test(arguments: zoneless)
    func aMissingZoneIsUTCOnlyWhereItMayBe(_ vector: Vector) {
        #expect(ISO8601.parse(vector.text, .rfc3339) == nil)
        #expect(ISO8601.parse(vector.text, .standard) == nil)
        #expect(ISO8601.parse(vector.text, .zoneOptional) == vector.duration)
    }

    @Test(arguments: never)
    func neverATime(_ text: String) {
        for grammar in [ISO8601.Grammar.rfc3339, .standard, .zoneOptional] {
            #expect(ISO8601.parse(text, grammar) == nil)
        }
    }

    /// The bytes form reads what the string form reads (the capture reader parses in place).
    @Test func bytesAndStringsAgree() {
        for vector in Self.everywhere + Self.notRFC3339 + Self.zoneless {
            let bytes = Array(vector.text.utf8)
            #expect(bytes.withUnsafeBufferPointer { ISO8601.parse($0, .zoneOptional) } == ISO8601.parse(vector.text, .zoneOptional))
        }
    }

    @Test(arguments: [
        (Duration.zero, "1970-01-01T00:00:00Z"),
        (.seconds(951_868_800), "2000-03-01T00:00:00Z"),
        (.seconds(1_795_248_000) + .milliseconds(250), "2026-11-21T08:00:00.25Z"),
        (.seconds(1_709_251_199) + .microseconds(999_999), "2024-02-29T23:59:59.999999Z"),
        (.seconds(-1), "1969-12-31T23:59:59Z"),
        (.milliseconds(-500), "1969-12-31T23:59:59.5Z"),
        (Duration(attoseconds: 1), "1970-01-01T00:00:00.000000000000000001Z"),
        (.seconds(253_402_300_799), "9999-12-31T23:59:59Z"),
        (.seconds(253_402_300_800), "10000-01-01T00:00:00Z"),
        (.seconds(-62_167_219_201), "-0001-12-31T23:59:59Z"),
    ] as [(Duration, String)])
    func formats(_ instant: Duration, _ text: String) {
        #expect(ISO8601.string(instant) == text)
    }

    @Test func fixedFractionDigitsAreCutNotRounded() {
        #expect(ISO8601.string(.seconds(1_795_248_000) + .milliseconds(120), fractionDigits: 3) == "2026-11-21T08:00:00.120Z")
        #expect(ISO8601.string(.seconds(1_795_248_000), fractionDigits: 3) == "2026-11-21T08:00:00.000Z")
        #expect(ISO8601.string(.seconds(1_795_248_000) + .microseconds(999_999), fractionDigits: 3) == "2026-11-21T08:00:00.999Z")
        #expect(ISO8601.string(.milliseconds(-1), fractionDigits: 3) == "1969-12-31T23:59:59.999Z")
    }

    @Test func fourDigitYears() {
        #expect(ISO8601.fourDigitYears.contains(.seconds(253_402_300_799)))
        #expect(!ISO8601.fourDigitYears.contains(.seconds(253_402_300_800)))
        #expect(ISO8601.fourDigitYears.contains(.seconds(-62_167_219_200)))
        #expect(!ISO8601.fourDigitYears.contains(.seconds(-62_167_219_200) - .nanoseconds(1)))
    }

    /// Whole seconds format exactly as Foundation's ISO 8601 formatter, across 0000–9999.
    @Test func agreesWithFoundation() {
        var random = SplitMix64(seed: 2026)
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        for _ in 0..<2000 {
            let seconds = Int64.random(in: -2_000_000_000...253_402_300_799, using: &random)
            #expect(ISO8601.string(secondsSince1970: seconds) == formatter.string(from: Date(timeIntervalSince1970: Double(seconds))))
        }
    }

    /// Any instant of 0000–9999 written and read back is itself, in every grammar, to the
    /// attosecond; and the text read in another zone is the same instant.
    @Test func roundTrips() {
        var random = SplitMix64(seed: 31)
        let range = ISO8601.fourDigitYears
        let span = UInt64((range.upperBound - range.lowerBound).components.seconds)
        for round in 0..<5000 {
            var instant = range.lowerBound + .seconds(Int64(random.next() % span))
            switch round % 3 {
            case 0: break
            case 1: instant += .milliseconds(Int64(random.next() % 1000))
            default: instant += Duration(attoseconds: Int128(random.next() % 1_000_000_000_000_000_000))
            }
            let text = ISO8601.string(instant)
            for grammar in [ISO8601.Grammar.rfc3339, .standard, .zoneOptional] {
                #expect(ISO8601.parse(text, grammar) == instant, "\(text)")
            }
            let minutes = Int64(random.next() % (14 * 60)) * (round % 2 == 0 ? 1 : -1)
            let local = instant + .seconds(minutes * 60)
            guard range.contains(local) else { continue }
            func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
            let shifted = String(ISO8601.string(local).dropLast()) + (minutes < 0 ? "-" : "+") + two(abs(minutes) / 60) + ":" + two(abs(minutes) % 60)
            #expect(ISO8601.parse(shifted) == instant, "\(shifted)")
        }
    }
}

@Suite("Instants and days")
struct InstantTests {
    /// `UTCTime` keeps milliseconds, rounding down also before 1970.
    @Test func utcTimeReadsToTheMillisecond() {
        #expect(UTCTime(iso8601: "2026-11-21T08:00:00.250Z")?.millisecondsSince1970 == 1_795_248_000_250)
        #expect(UTCTime(iso8601: "2026-11-21T08:00:00.2509Z")?.millisecondsSince1970 == 1_795_248_000_250)
        #expect(UTCTime(iso8601: "1969-12-31T23:59:59.9999Z")?.millisecondsSince1970 == -1)
        #expect(UTCTime(iso8601: "2026-11-21T08:00:00") == nil)
        #expect(UTCTime(millisecondsSince1970: 1_999).iso8601 == "1970-01-01T00:00:01Z")
        #expect(UTCTime(millisecondsSince1970: -1).iso8601 == "1969-12-31T23:59:59Z")
    }

    @Test func arithmeticSaturates() {
        #expect(UTCTime(secondsSince1970: .max).millisecondsSince1970 == .max)
        #expect(UTCTime(secondsSince1970: .min).millisecondsSince1970 == .min)
        #expect(UTCTime(millisecondsSince1970: .max).adding(seconds: 1).millisecondsSince1970 == .max)
        #expect(UTCTime(millisecondsSince1970: .min).adding(nanoseconds: -1_000_000).millisecondsSince1970 == .min)
        #expect(UTCTime(millisecondsSince1970: 0).adding(seconds: .min).millisecondsSince1970 == .min)
        #expect(!UTCTime(millisecondsSince1970: .min).iso8601.isEmpty)
        #expect(!UTCTime(millisecondsSince1970: .max).iso8601.isEmpty)
    }

    @Test func calendarDays() throws {
        #expect(try #require(LocalDate("1970-01-01")).dayNumber == 0)
        #expect(try #require(LocalDate("2000-03-01")).dayNumber == 11_017)
        #expect(try #require(LocalDate("1969-12-31")).dayNumber == -1)
        #expect(LocalDate(dayNumber: 20_446).description == "2025-12-24")
        #expect(LocalDate("2025-02-29") == nil)
        #expect(LocalDate("2024-02-29") != nil)
        #expect(LocalDate("2025-1-01") == nil)
        #expect(LocalDate("2025-12-24T00:00:00Z") == nil)
        #expect(LocalDate(year: 1970, month: 1, day: 2)?.dayNumber == 1)
        #expect(LocalDate(year: .max, month: 1, day: 1) == nil)
        #expect(LocalDate(secondsSince1970: -1, offset: 0).dayNumber == -1)
        #expect(LocalDate(secondsSince1970: 1_766_620_800 - 1, offset: 3600).description == "2025-12-25")
        #expect(LocalDate(secondsSince1970: .max, offset: 3600).dayNumber == CivilDate.floorDivide(.max, 86_400))
        #expect(!LocalDate(dayNumber: .max).description.isEmpty)
    }

    @Test func dayNumberTextDayNumberIsTheIdentityFrom1600To2400() {
        var number: Int64 = -135_140  // 1600-01-01
        while number < 157_000 {  // past 2399-12-31
            let day = LocalDate(dayNumber: number)
            #expect(LocalDate(day.description) == day)
            number += 7
        }
    }
}

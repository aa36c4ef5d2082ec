import DeterministicRandom
import Foundation
import FTMS
import Testing
import Workout

/// The hand-written calendar, ISO 8601 and UUID code, checked against Foundation.
@Suite("Times and ids")
struct TimeAndIdentityTests {
    @Test(arguments: [
        (0 as Int64, "1970-01-01T00:00:00Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (1_795_248_000, "2026-11-21T08:00:00Z"),
        (4_107_542_399, "2100-02-28T23:59:59Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (253_402_300_799, "9999-12-31T23:59:59Z"),
    ])
    func formats(seconds: Int64, text: String) {
        #expect(UTCTime(secondsSince1970: seconds).iso8601 == text)
        #expect(UTCTime(iso8601: text) == UTCTime(secondsSince1970: seconds))
    }

    /// Milliseconds are dropped rounding down, also before 1970.
    @Test func wholeSecondsRoundDown() {
        #expect(UTCTime(millisecondsSince1970: 1_999).iso8601 == "1970-01-01T00:00:01Z")
        #expect(UTCTime(millisecondsSince1970: -1).iso8601 == "1969-12-31T23:59:59Z")
        #expect(UTCTime(millisecondsSince1970: -1).secondsSince1970 == -1)
    }

    @Test func parsesFractionsAndOffsets() {
        #expect(UTCTime(iso8601: "2026-11-21T08:00:00.250Z")?.millisecondsSince1970 == 1_795_248_000_250)
        #expect(UTCTime(iso8601: "2026-11-21T16:00:00+08:00") == UTCTime(secondsSince1970: 1_795_248_000))
        #expect(UTCTime(iso8601: "2026-11-21T03:00:00-05:00") == UTCTime(secondsSince1970: 1_795_248_000))
    }

    @Test(arguments: ["", "2026-11-21", "2026-02-29T00:00:00Z", "2026-11-21T24:00:00Z", "2026-11-21T08:00:00", "2026-11-21T08:00:00.Z", "2026-11-21T08:00:00Zjunk", "21/11/2026 08:00"])
    func rejectsWhatIsNotATime(text: String) {
        #expect(UTCTime(iso8601: text) == nil)
    }

    /// Random instants across ±10 000 years format exactly as Foundation's ISO 8601 formatter.
    @Test func agreesWithFoundation() {
        var random = SplitMix64(seed: 2026)
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        for _ in 0..<2000 {
            let seconds = Int64.random(in: -2_000_000_000...253_402_300_799, using: &random)
            let time = UTCTime(secondsSince1970: seconds)
            #expect(time.iso8601 == formatter.string(from: Date(timeIntervalSince1970: Double(seconds))))
            #expect(UTCTime(iso8601: time.iso8601) == time)
        }
    }

    @Test func localDates() {
        #expect(LocalDate("2025-12-24")?.description == "2025-12-24")
        #expect(LocalDate("2024-02-29") != nil)
        #expect(LocalDate("2025-02-29") == nil)
        #expect(LocalDate("2025-12-24T00:00:00Z") == nil)
        #expect(LocalDate(year: 1970, month: 1, day: 2)?.dayNumber == 1)
    }

    /// Session ids are RFC 9562 version 4 UUIDs in lowercase, and Foundation reads them back.
    @Test func sessionIDsAreVersion4UUIDs() {
        var ids = RandomSessionIDs(using: SplitMix64(seed: 7))
        var seen = Set<String>()
        for _ in 0..<1000 {
            let id = ids.nextSessionID()
            let characters = Array(id)
            #expect(characters.count == 36)
            #expect(characters[14] == "4")
            #expect("89ab".contains(characters[19]))
            #expect(id == id.lowercased())
            #expect(UUID(uuidString: id)?.uuidString.lowercased() == id)
            seen.insert(id)
        }
        #expect(seen.count == 1000)
        var system = RandomSessionIDs()
        #expect(system.nextSessionID() != system.nextSessionID())
    }
}

/// Times come from outside (a capture file can hold anything): extreme or backward times
/// must give odd sessions, never a trap.
@Suite("Hostile times")
struct HostileTimeTests {
    @Test func extremeInstantsFormat() {
        #expect(!UTCTime(millisecondsSince1970: .min).iso8601.isEmpty)
        #expect(!UTCTime(millisecondsSince1970: .max).iso8601.isEmpty)
        #expect(!LocalDate(dayNumber: .max).description.isEmpty)
        #expect(LocalDate(year: .max, month: 1, day: 1) == nil)
        #expect(UTCTime(secondsSince1970: .max).millisecondsSince1970 == .max)
    }

    @Test func theEngineSurvivesAbsurdClocks() throws {
        var engine = SessionEngine(machine: Ride.bike, rules: SessionRules(), ids: RandomSessionIDs(using: SplitMix64(seed: 3)))
        var values = FieldValues()
        values.set(.instantaneousPower, value: 300)
        values.set(.totalDistance, value: 100)
        let record = DataRecord(kind: .indoorBikeData, values: values)
        let times: [Timestamp] = [
            Timestamp(monotonic: .seconds(-5), wall: UTCTime(millisecondsSince1970: .min)),
            Timestamp(monotonic: .zero, wall: UTCTime(millisecondsSince1970: .max)),
            Timestamp(monotonic: .seconds(Int64.max / 2), wall: UTCTime(millisecondsSince1970: 0)),
            Timestamp(monotonic: .seconds(1), wall: UTCTime(millisecondsSince1970: 0)),  // backwards
            Timestamp(monotonic: .seconds(Int64.max), wall: UTCTime(millisecondsSince1970: .max)),
        ]
        var events: [SessionEvent] = []
        for time in times {
            events += engine.ingest(record, at: time)
            events += engine.tick(at: time)
        }
        events += engine.close(at: times[times.count - 1], reason: .shutdown)
        #expect(engine.openSessionID == nil)
        for summary in events.compactMap(\.summary) {
            #expect(summary.duration <= summary.detail.elapsed)
            #expect(summary.totalDistance >= 0)
            #expect(!summary.jsonString.isEmpty)
        }
        let snapshot = engine.snapshot(at: times[0])
        #expect(snapshot == nil)
    }

    @Test func restoringWithAbsurdClocks() throws {
        var ride = Ride()
        for second in 0...70 { ride.sample(Double(second), [.instantaneousPower: 200, .totalDistance: Double(second)]) }
        let snapshot = try #require(ride.engine.snapshot(at: Ride.time(70)))
        for wall in [Int64.min, -1, Int64.max] {
            let (engine, events) = SessionEngine.restoring(
                snapshot, ids: RandomSessionIDs(using: SplitMix64(seed: 4)),
                at: Timestamp(monotonic: .seconds(Int64.max), wall: UTCTime(millisecondsSince1970: wall))
            )
            #expect(events.first?.state.description == "paused")
            // Either still open (no downtime measurable) or closed with a sane summary.
            if let summary = events.last?.summary {
                #expect(summary.duration == 70)
                #expect(engine.openSessionID == nil)
            }
        }
    }
}

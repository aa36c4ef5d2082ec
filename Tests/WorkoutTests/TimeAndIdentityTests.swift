import DeterministicRandom
import Foundation
import FTMS
import Testing
import Workout

/// Session ids, checked against Foundation (the calendar and ISO 8601 are CivilTimeTests').
@Suite("Session ids")
struct TimeAndIdentityTests {
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

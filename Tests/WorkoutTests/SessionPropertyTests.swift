import FTMS
import Foundation
import Testing
import Workout

/// Invariants over random input streams (``RandomStream``): whatever the machine sends, the
/// engine's sessions are well-formed.
@Suite("Session properties")
struct SessionPropertyTests {
    static let seeds: [UInt64] = Array(1...120)

    @Test(arguments: seeds)
    func summariesAreConsistent(seed: UInt64) throws {
        var ride = Ride(seed & 1 == 0 ? Ride.bike : Ride.rower, seed: seed)
        var stream = RandomStream(seed: seed)
        for _ in 0..<800 { stream.step(&ride) }
        ride.close(stream.t + 1)
        #expect(ride.engine.openSessionID == nil)
        let rules = SessionRules()
        for summary in ride.ended {
            #expect(summary.duration >= 0)
            #expect(summary.totalEnergy >= 0)
            #expect(summary.totalDistance >= 0)
            #expect(summary.detail.paused >= 0)
            #expect(summary.duration <= summary.detail.elapsed)
            #expect(summary.duration + summary.detail.paused == summary.detail.elapsed)
            #expect(summary.endedAt.secondsSince1970 - summary.startedAt.secondsSince1970 == Int64(summary.detail.elapsed))
            #expect(summary.detail.sampleCount >= 0)
            let decoded = try SessionSummary(json: summary.jsonString)
            #expect(decoded == summary)
        }
        for case .finished(_, let summary) in ride.events {
            #expect(summary.duration >= Int(rules.minimumMovement.components.seconds) - 1)
            #expect(summary.totalDistance > 0 || summary.totalEnergy > 0)
        }
    }

    /// Events follow the lifecycle: one session at a time, started first, paused and resumed
    /// alternating, finished or dropped last; and time never runs backwards across them.
    @Test(arguments: seeds)
    func eventsAreWellOrdered(seed: UInt64) {
        var ride = Ride(seed: seed)
        var stream = RandomStream(seed: seed &* 7919)
        for _ in 0..<800 { stream.step(&ride) }
        ride.close(stream.t + 1)

        var open: String?
        var active = false
        var seen = Set<String>()
        var lastInstant = Int64.min
        var lastElapsed = Int64.min
        for event in ride.events {
            let progress = event.progress
            let instant = progress.startedAt.millisecondsSince1970 + progress.elapsedMilliseconds
            #expect(instant >= lastInstant, "event at \(instant) ms after one at \(lastInstant) ms")
            lastInstant = instant
            #expect(progress.moving <= progress.elapsed)
            switch event {
            case .started:
                #expect(open == nil)
                #expect(!seen.contains(progress.sessionID))
                open = progress.sessionID
                seen.insert(progress.sessionID)
                active = true
                lastElapsed = progress.elapsedMilliseconds
                #expect(progress.elapsedMilliseconds == 0)
                continue
            case .paused:
                #expect(active)
                active = false
            case .resumed:
                #expect(!active)
                active = true
            case .finished, .dropped:
                open = nil
            }
            #expect(progress.sessionID == event.sessionID)
            #expect(seen.contains(progress.sessionID))
            #expect(progress.elapsedMilliseconds >= lastElapsed)
            lastElapsed = progress.elapsedMilliseconds
        }
        #expect(open == nil)
    }

    /// The random streams reach every way a session can end and be kept or dropped, so the
    /// invariants above are not checked on easy cases only.
    @Test func theStreamsExerciseEveryOutcome() {
        var reasons = Set<EndReason>()
        var drops = Set<DropReason>()
        var finished = 0
        var methods = Set<TotalMethod>()
        for seed in Self.seeds {
            var ride = Ride(seed: seed)
            var stream = RandomStream(seed: seed)
            for _ in 0..<800 { stream.step(&ride) }
            ride.close(stream.t + 1)
            for event in ride.events {
                switch event {
                case .finished(_, let summary):
                    finished += 1
                    reasons.insert(summary.detail.endReason)
                    methods.formUnion([summary.detail.energyMethod, summary.detail.distanceMethod])
                case .dropped(_, let reason, let summary):
                    drops.insert(reason)
                    reasons.insert(summary.detail.endReason)
                default:
                    break
                }
            }
        }
        #expect(finished >= 100)
        #expect(reasons == Set(EndReason.allCases).subtracting([.shutdown]))
        #expect(drops == Set(DropReason.allCases))
        #expect(methods.isSuperset(of: [.counter, .integrated]))
    }

    /// The same inputs give the same sessions, ids included: replay is reproducible.
    @Test func replayIsDeterministic() {
        func run() -> [String] {
            var ride = Ride(seed: 42)
            var stream = RandomStream(seed: 42)
            for _ in 0..<2000 { stream.step(&ride) }
            ride.close(stream.t + 1)
            return ride.ended.map(\.jsonString)
        }
        let first = run()
        #expect(!first.isEmpty)
        #expect(first == run())
    }
}

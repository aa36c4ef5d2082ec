import Floor
import OwnThread
import Testing

/// The floor on a simulated gym (issue 37's bar): 60 machines on 6 gateways whose radios
/// overlap (each machine heard by 2 or 3 of them, home by the best signal or by an allow list),
/// every gateway deciding on its own view fed by a broker with small delays and a retained
/// store, the Bluetooth link as the lock, riders, and 20 gateway deaths and returns (last will,
/// or silent and found by the lease) plus 3 cut-offs from the broker with the links kept.
/// Each case runs the gym with the gateways' scans reporting every 250 ms, 1 s or 2 s (real
/// scans report a machine about every second or less often), on a few seeds.
///
/// Each run is minutes of CPU without a suspension point: it runs on a thread of its own
/// (`onOwnThread`), one case at a time, so it never holds the cooperative pool's threads (two on
/// a 2-core box) that the rest of the test run waits on.
@Suite(.serialized) struct GymSimulationTests {
    static let hours = 2

    struct Case: Sendable, CustomTestStringConvertible {
        let scanMilliseconds: Int64
        let seed: UInt64
        var testDescription: String { "scans every \(scanMilliseconds) ms, seed \(seed)" }
    }

    /// One seed per scan cadence keeps the suite's time modest; each seed replays exactly.
    static let cases = [(250, 37), (1000, 38), (2000, 39)].map { Case(scanMilliseconds: Int64($0.0), seed: UInt64($0.1)) }

    static func events() -> [(at: Duration, gateway: String, event: GymWorld.GatewayEvent)] {
        var events: [(at: Duration, gateway: String, event: GymWorld.GatewayEvent)] = []
        for death in 0..<20 {
            let at = Duration.seconds(300 + death * 300)
            let gateway = "floor-\((death * 5) % 6 + 1)"
            events.append((at, gateway, death % 4 == 3 ? .dieSilently : .dieWithWill))
            events.append((at + .seconds(90 + (death * 37) % 150), gateway, .returns))
        }
        for (index, minute) in [12, 52, 97].enumerated() {
            let gateway = "floor-\((index * 2 + 3) % 6 + 1)"
            events.append((.seconds(minute * 60), gateway, .cutOff))
            events.append((.seconds(minute * 60 + 90), gateway, .rejoin))
        }
        return events
    }

    @Test(arguments: cases) func aSixtyMachineGymThroughTwentyDeaths(_ run: Case) async throws {
        let snapshot = try SnapshotMaker.ridden(seconds: 600)
        let end = Duration.seconds(Self.hours * 3600)
        let world = try await onOwnThread { () throws -> GymWorld in
            var world = try GymWorld(seed: run.seed, rules: FloorRules(), snapshot: snapshot, scanEvery: .milliseconds(run.scanMilliseconds))
            world.run(until: end, events: Self.events())
            return world
        }

        let seconds = Double(Self.hours * 3600)
        var lines = ["gym simulation (\(run.testDescription)): 60 machines, 6 gateways, \(Self.hours) h, 20 deaths and returns, 3 cut-offs"]
        for kind in GymMessage.Kind.allCases {
            let sent = world.broker.published[kind] ?? (0, 0)
            let fanned = world.broker.delivered[kind] ?? (0, 0)
            lines.append(
                "  \(kind.rawValue): published \(rate(sent.messages, seconds)) msg/s, \(rate(sent.bytes, seconds)) B/s"
                    + " (\(sent.messages) msgs, \(sent.bytes / max(1, sent.messages)) B each); delivered \(rate(fanned.messages, seconds)) msg/s, \(rate(fanned.bytes, seconds)) B/s")
        }
        let rides = world.finishedRides
        let rideSessions = rides.map(\.sessions.count)
        let doubleUploads = world.uploads.filter { $0.value.count > 1 }
        // Every session of a ride that ended 5 minutes before the end (time for a dead gateway
        // to come back and settle) was uploaded exactly once: never lost, never counted twice.
        let settled = rides.filter { $0.end < end - .seconds(300) }.flatMap(\.sessions)
        let miscounted = settled.filter { world.uploads[$0]?.count != 1 }.map { "\($0): \(world.uploads[$0] ?? [])" }
        lines.append(
            "  rides \(rides.count), adoptions \(world.adoptions), handed over \(world.handedOver) (by a returning gateway; let go by an adopter"
                + " that lost the link lock: \(world.gaveUp)), splits \(world.splits.count)"
                + " (after a mirrored checkpoint: \(world.splits.filter(\.mirrored).count)), lock refusals \(world.lockRefusals),"
                + " far takes \(world.farTakes.count), double streams \(world.doubleStreams.count),"
                + " home checks \(world.homeChecksPassed) passed, \(world.strandedAway.count) stranded, second summaries \(doubleUploads.count),"
                + " sessions uploaded other than once \(miscounted.count) of \(settled.count)")
        for silent in [false, true] {
            let gaps = world.adoptionGaps.filter { $0.silent == silent }.map(\.gap).sorted()
            guard !gaps.isEmpty else { continue }
            let at = { (q: Double) in gaps[min(gaps.count - 1, Int(Double(gaps.count) * q))] }
            lines.append(
                "  death to the adopter's link, \(silent ? "silent (lease)" : "last will"): \(gaps.count) adoptions,"
                    + " p50 \(at(0.5)), p95 \(at(0.95)), max \(gaps.last ?? .zero)")
        }
        print(lines.joined(separator: "\n"))

        #expect(world.farTakes.isEmpty, "\(world.farTakes.prefix(5))")
        #expect(world.strandedAway.isEmpty, "\(world.strandedAway.prefix(5))")
        #expect(world.doubleStreams.isEmpty, "\(world.doubleStreams.prefix(5))")
        #expect(world.splits.filter(\.mirrored).isEmpty, "\(world.splits)")
        // A session handed over was continued by its adopter: none is dropped by both sides.
        #expect(world.handedOverIDs.isSubset(of: world.adoptedIDs), "\(world.handedOverIDs.subtracting(world.adoptedIDs))")
        #expect(miscounted.isEmpty, "\(miscounted.prefix(5))")
        // The run did what it claims: deaths displaced rides, neighbours adopted them, and the
        // homes got their machines back.
        #expect(rides.count > 60)
        #expect(world.adoptions >= 10)
        #expect(world.handedOver >= 5)
        #expect(world.homeChecksPassed > 50)
        #expect(rideSessions.allSatisfy { $0 >= 1 })
    }

    private func rate(_ count: Int, _ seconds: Double) -> String {
        let value = Double(count) / seconds
        return value >= 100 ? String(Int(value.rounded())) : String(Double(Int(value * 100)) / 100)
    }
}

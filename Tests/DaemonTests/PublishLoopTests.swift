import CivilTime
import Clocks
import Daemon
import Foundation
import JSON
import NIOPosix
import Publish
import TestSupport
import Testing
import Workout

/// The daemon's publishing path in process: the fleet's workers run on the metrics socket's
/// loop because the fleet pins them there, not because `ftms-bridged` makes NIO the global
/// executor (these tests run on Swift's default one), so every notification is published on
/// the loop in the job that read it, with no hop onto the loop and back.
@Suite("Daemon: publishing on the metrics socket's loop", .serialized)
struct PublishLoopTests {
    @Test func everyMessageOfARideIsPublishedOnTheServersLoop() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-publish-loop")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let server = try await MetricsServer.listen(
            MetricsServerConfiguration(path: directory.path + "/metrics.sock", daemonVersion: "test"), on: group.next(), clock: .fixed(UTCTime(millisecondsSince1970: 0)))
        let rig = try await FleetRig(simulator: ["--bikes", "1", "--rowers", "1", "--rate", "4", "--known"], metricsServer: server)
        try await rig.start()
        // `machine` messages, then samples of both machines and their sessions' `session_state`.
        let published = try await eventually { await server.metrics.messagesPublished >= 40 }
        let metrics = await server.metrics
        await rig.stop()
        await server.close()
        try await group.shutdownGracefully()
        #expect(published, "\(metrics)")
        #expect(metrics.messagesPublishedOffLoop == 0, "\(metrics.messagesPublishedOffLoop) of \(metrics.messagesPublished) published off the loop")
    }
}

/// A notification read on the loop skips the supervisor's stream when nothing is queued before
/// it (``MachineFleet``'s direct route): handled in the turn that read it, in the same order.
@Suite("Daemon: notifications handled in the turn that read them", .serialized)
struct DirectNotificationTests {
    /// Every envelope the socket published, in order, as the broker would get them.
    final class Published: EnvelopeForwarder, @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [(type: MessageType, machine: String?, json: JSONValue)] = []
        func forwards(_ type: MessageType) -> Bool { true }
        func forward(_ type: MessageType, machine: String?, envelope: [UInt8]) {
            guard let json = try? JSONReader.read(String(decoding: envelope, as: UTF8.self)) else { return }
            lock.withLock { lines.append((type, machine, json)) }
        }
        func announce(_ machine: MachineIdentity, manufacturer: String?) {}
        func sessionChanged(_ machine: String, openEnvelope: [UInt8]?) {}
        var all: [(type: MessageType, machine: String?, json: JSONValue)] { lock.withLock { lines } }
    }

    static func ride(eventLoopReads: Bool) async throws -> (direct: Int, notifications: Int, published: Published, finished: String?, series: Int) {
        let directory = try TemporaryDirectory(prefix: "ftms-direct")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await MetricsServer.listen(
            MetricsServerConfiguration(path: directory.path + "/metrics.sock", daemonVersion: "test"), on: group.next(), clock: .fixed(UTCTime(millisecondsSince1970: 0)))
        let published = Published()
        let rig = try await FleetRig(
            simulator: ["--bikes", "2", "--rowers", "0", "--rate", "10", "--known"], eventLoopReads: eventLoopReads, metricsServer: server, mqtt: published)
        try await rig.start()
        _ = try await eventually(.seconds(60)) {
            let machines = await rig.statuses()
            return machines.count == 2 && machines.values.allSatisfy { $0.sessionID != nil && $0.notifications >= 40 }
        }
        let session = await rig.statuses()["SF-Bike-0002"]?.sessionID
        try await rig.stopRiding("SF-Bike-0002")
        // Idle 2 s ends it: stored with the plot points recorded while it ran.
        _ = try await eventually(.seconds(60)) { (try? await rig.store.counts().pending) == 1 }
        var series = 0
        if let session, let stored = try await rig.store.series(sessionID: session) {
            #expect(stored.finished)
            series = stored.points.count
        }
        let direct = await rig.fleet.notificationsHandledDirectly()
        let notifications = await rig.statuses().values.map(\.notifications).reduce(0, +)
        await rig.stop()
        await server.close()
        try await group.shutdownGracefully()
        return (direct, notifications, published, session, series)
    }

    @Test func onTheLoopMostNotificationsSkipTheStreamAndTheOrderHolds() async throws {
        let ride = try await Self.ride(eventLoopReads: true)
        #expect(ride.direct > ride.notifications / 2, "\(ride.direct) of \(ride.notifications) handled directly")
        // Its plot points, one a second, reached the store through the keeper without a hop.
        #expect(ride.series >= 3, "\(ride.series) plot points stored")
        Self.checkOrder(ride.published, finished: ride.finished)
    }

    /// Read on the bus thread, nothing can skip the stream: the same ride, the same order.
    @Test func offTheLoopEveryNotificationTakesTheStream() async throws {
        let ride = try await Self.ride(eventLoopReads: false)
        #expect(ride.direct == 0)
        #expect(ride.notifications > 80)
        #expect(ride.series >= 3, "\(ride.series) plot points stored")
        Self.checkOrder(ride.published, finished: ride.finished)
    }

    /// For each machine: `ready` before any sample; at most one sample names a session before
    /// its `started` (the notification that starts it publishes its sample, then the event);
    /// nothing names a session after its `finished`.
    static func checkOrder(_ published: Published, finished: String?) {
        let lines = published.all
        for machine in ["SF-Bike-0001", "SF-Bike-0002"] {
            let own = lines.filter { $0.machine == machine }
            let ready = own.firstIndex { $0.type == .machine && $0.json["payload"]?["state"]?.string == "ready" }
            let firstSample = own.firstIndex { $0.type == .sample }
            #expect(ready != nil && firstSample != nil && ready! < firstSample!, "\(machine): ready at \(String(describing: ready)), first sample at \(String(describing: firstSample))")
            var started: Set<String> = []
            var ended: Set<String> = []
            var early: [String: Int] = [:]
            for line in own {
                let session = line.json["sessionId"]?.string
                if line.type == .sessionState, let session {
                    switch line.json["payload"]?["state"]?.string {
                    case "started": started.insert(session)
                    case "finished", "dropped": ended.insert(session)
                    default: break
                    }
                }
                if line.type == .sample, let session {
                    if !started.contains(session) { early[session, default: 0] += 1 }
                    #expect(early[session, default: 0] <= 1, "\(machine): samples of \(session) before its start")
                    #expect(!ended.contains(session), "\(machine): a sample of \(session) after its end")
                }
            }
        }
        #expect(lines.contains { $0.type == .sessionState && $0.json["sessionId"]?.string == finished && $0.json["payload"]?["state"]?.string == "finished" })
    }
}

import CivilTime
import Clocks
import NIOPosix
import Publish
import TestSupport
import Testing

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

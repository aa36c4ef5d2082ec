import Clocks
import NIOPosix
import Publish
import Synchronization
import Workout

/// `replay --publish PATH`: a capture fed to the metrics socket as the daemon would feed it,
/// so integrators can build displays without machines (contract §7).
///
/// Envelope timestamps follow the capture's own clock: a replayed ride reads as the ride it
/// was, whatever the speed of the replay.
final class ReplayPublisher: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let server: MetricsServer
    private let now = CaptureTime()

    /// The capture's wall clock, shared with the server's envelope writer.
    final class CaptureTime: Sendable {
        let time = Mutex(UTCTime(millisecondsSince1970: 0))
    }

    init(path: String, version: String) async throws {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let now = now
        do {
            server = try await MetricsServer.listen(
                MetricsServerConfiguration(path: path, daemonVersion: version), on: group.next(),
                clock: WallClock { now.time.withLock { $0 } })
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    func publish(_ output: CaptureReplay.Output, at time: Timestamp, machine: MachineIdentity) async {
        if case .opened = output {} else { now.time.withLock { $0 = time.wall } }
        let live = LivePublisher(server: server)
        switch output {
        case .opened:
            await live.machine(machine, state: "discovered")
        case .connected:
            await live.machine(machine, state: "ready")
        case .disconnected:
            await live.machine(machine, state: "disconnected")
        case .sample(let record):
            await live.sample(record, machine: machine.name, sessionID: nil)
        case .status(let status):
            await live.status(status, machine: machine.name, sessionID: nil)
        case .seriesPoint:
            break
        case .session(let event):
            await live.session(event, machine: machine.name)
        }
    }

    func close() async {
        await server.close()
        try? await group.shutdownGracefully()
    }
}

import Benchmark
import Clocks
import Glibc
import NIOCore
import NIOPosix
import Publish
import Synchronization

/// The metrics socket's costs (SPEC §7): checking a payload, publishing with nobody
/// listening, and publishing to 200 readers of which one never reads. The last is the
/// daemon's worst realistic case; its figure per message is the whole fan-out (200 writes of
/// one shared buffer), measured from the caller, actor hop included.
let samplePayload = Array((#"{"characteristic":"indoor_bike_data","uuid":"2ad2","flags":2548,"more_data":false,"#
    + #""instantaneous_speed_kmh":31.42,"instantaneous_cadence_rpm":88.5,"total_distance_m":12034,"resistance_level":12,"#
    + #""instantaneous_power_w":212,"total_energy_kcal":143,"energy_per_hour_kcal":null,"heart_rate_bpm":141,"elapsed_time_s":1804}"#).utf8)

/// A server on a temporary socket with `readerCount` readers that read and discard, plus one
/// that never reads; started by a benchmark's setup, stopped by its teardown.
final class Fanout: Sendable {
    private struct Running {
        var serverLoops: MultiThreadedEventLoopGroup
        var readerLoops: MultiThreadedEventLoopGroup
        var server: MetricsServer
        var readers: [any Channel]
        var directory: String
    }

    private let running = Mutex<Running?>(nil)
    let readerCount: Int

    init(readerCount: Int) {
        self.readerCount = readerCount
    }

    var server: MetricsServer? { running.withLock { $0?.server } }

    func start() async throws {
        var template = Array("/tmp/publish-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw IOError(errnoCode: errno, reason: "mkdtemp") }
        let directory = String(cString: made)
        let path = directory + "/metrics.sock"
        let serverLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let readerLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await MetricsServer.listen(
            MetricsServerConfiguration(path: path, daemonVersion: "bench"), on: serverLoops.next(), clock: .system)
        var readers: [any Channel] = []
        for index in 0..<readerCount {
            readers.append(try await ClientBootstrap(group: readerLoops)
                .channelOption(.autoRead, value: index > 0)
                .connect(unixDomainSocketPath: path)
                .get())
        }
        running.withLock { $0 = Running(serverLoops: serverLoops, readerLoops: readerLoops, server: server, readers: readers, directory: directory) }
    }

    func stop() async throws {
        guard let state = running.withLock({ state in defer { state = nil }; return state }) else { return }
        await state.server.close()
        for reader in state.readers { try? await reader.close() }
        try await state.readerLoops.shutdownGracefully()
        try await state.serverLoops.shutdownGracefully()
        rmdir(state.directory)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )

    Benchmark("Payload check, 250-byte sample") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? JSONPayload(validating: samplePayload))
        }
    }

    let payload = (try? JSONPayload(validating: samplePayload)) ?? .empty
    for readers in [0, 200] {
        let fanout = Fanout(readerCount: readers)
        Benchmark(
            readers == 0 ? "Publish a sample, no readers" : "Publish a sample to 200 readers, one never reading",
            configuration: .init(scalingFactor: readers == 0 ? .kilo : .one, maxIterations: readers == 0 ? 1_000 : 2_000),
            closure: { benchmark in
                guard let server = fanout.server else { return }
                for _ in benchmark.scaledIterations {
                    blackHole(try? await server.publish(.sample, machine: "SF-Bike-0001", sessionID: "s", payload: payload))
                }
            },
            setup: { try await fanout.start() },
            teardown: { try await fanout.stop() }
        )
    }
}

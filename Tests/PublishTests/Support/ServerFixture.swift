import TestSupport
import NIOCore
import NIOPosix
import CivilTime
import Clocks
import Publish
import Synchronization
import Testing

/// A server on a temporary socket, its own event loop, and a separate loop for test readers
/// (so readers and server compete for the CPU as separate processes would).
final class ServerFixture: Sendable {
    static let version = "ftms-bridge test"
    let directory: TemporaryDirectory
    let path: String
    let serverGroup: MultiThreadedEventLoopGroup
    let readerGroup: MultiThreadedEventLoopGroup
    let server: MetricsServer

    init(clock: WallClock = .fixed(UTCTime(millisecondsSince1970: 1_763_712_000_123)), limits: ReaderLimits = ReaderLimits(), group: String? = nil) async throws {
        directory = try TemporaryDirectory()
        path = directory.path + "/run/metrics.sock"
        serverGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        readerGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let configuration = MetricsServerConfiguration(path: path, group: group, daemonVersion: Self.version, limits: limits)
        do {
            server = try await MetricsServer.listen(configuration, on: serverGroup.next(), clock: clock)
        } catch {
            try? await serverGroup.shutdownGracefully()
            try? await readerGroup.shutdownGracefully()
            throw error
        }
    }

    func connect() async throws -> TestReader {
        try await TestReader.connect(path, on: readerGroup)
    }

    /// Connects and reads the `hello`.
    func connectPastHello() async throws -> (TestReader, hello: String) {
        let reader = try await connect()
        return (reader, try await reader.line())
    }

    func shutdown() async {
        await server.close()
        try? await readerGroup.shutdownGracefully()
        try? await serverGroup.shutdownGracefully()
    }
}

/// Runs `body` against a fresh server and shuts everything down however `body` ends.
func withServer<Result>(
    clock: WallClock = .fixed(UTCTime(millisecondsSince1970: 1_763_712_000_123)),
    limits: ReaderLimits = ReaderLimits(),
    group: String? = nil,
    _ body: (ServerFixture) async throws -> Result
) async throws -> Result {
    let fixture = try await ServerFixture(clock: clock, limits: limits, group: group)
    do {
        let result = try await body(fixture)
        await fixture.shutdown()
        return result
    } catch {
        await fixture.shutdown()
        throw error
    }
}

/// Builds a payload from text the test knows is valid (anything else is the test's defect,
/// recorded as an issue). Not throwing, so it can stand in `publish`'s lazy payload argument.
func payload(_ text: String) -> JSONPayload {
    do {
        return try JSONPayload(validating: text)
    } catch {
        Issue.record("not a JSON payload: \(text): \(error)")
        return .empty
    }
}

/// Runs `body` with a one-thread event loop group that is shut down however `body` ends.
@discardableResult
func withLoopGroup<Result>(_ body: (MultiThreadedEventLoopGroup) async throws -> Result) async throws -> Result {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    do {
        let result = try await body(group)
        try await group.shutdownGracefully()
        return result
    } catch {
        try? await group.shutdownGracefully()
        throw error
    }
}

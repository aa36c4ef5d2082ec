import TestSupport
import Foundation
import Testing

/// `replay --queue` goes through the store's `FinishedSessionKeeper`, the one path from a summary
/// to the queue: a session the store refuses (a trigger injected by another process) is a
/// one-line error and exit 1, and once the store takes writes the same replay queues it.
@Suite("replay --queue")
struct ReplayQueueTests {
    static func replay(_ capture: String, in state: TemporaryDirectory) async throws -> ProcessRunner.Result {
        try await ProcessRunner.run(
            ["replay", QueuePlotTests.root.appendingPathComponent("captures/\(capture)").path, "--queue", "--state-dir", state.path],
            timeout: .seconds(60))
    }

    static func sql(_ statement: String, in state: TemporaryDirectory) async throws {
        let result = try await runProgram(["/usr/bin/env", "sqlite3", state.file("ftms-bridge.sqlite"), statement])
        #expect(result.status == 0)
    }

    @Test func aSessionTheStoreRefusesExitsOneAndIsQueuedOnceItTakesWrites() async throws {
        let state = try TemporaryDirectory(prefix: "replay-queue")
        let first = try await Self.replay("bike-steady.ftmscap", in: state)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("queued 1 sessions as pending"))

        try await Self.sql("CREATE TRIGGER refuse BEFORE INSERT ON sessions BEGIN SELECT RAISE(ABORT, 'injected'); END;", in: state)
        let refused = try await Self.replay("rower-viking-split.ftmscap", in: state)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("not stored"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("queued"))

        try await Self.sql("DROP TRIGGER refuse;", in: state)
        let again = try await Self.replay("rower-viking-split.ftmscap", in: state)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("queued 1 sessions as pending"), "\(again.stderr)")
        #expect(again.stderr.contains("(0 were already there)"))
    }
}

import TestSupport
import Foundation
import Testing

/// `replay --publish` feeding the metrics socket and `watch` reading it, as real processes.
@Suite("replay --publish and watch", .serialized)
struct ReplayPublishTests {
    /// A 30-sample ride, one sample every 50 ms, starting ten seconds in so a reader started
    /// after the socket appears is connected before it (even on a loaded CI machine).
    static func capture(in directory: URL) throws -> String {
        var lines = [#"{"format":"ftmscap","version":1,"start":"2026-11-21T08:00:00Z","machine":{"name":"SF-Bike-0007","address":"C0:11:22:33:44:07","model":"SF-Bike-M1","type":"bike"}}"#]
        lines.append(#"{"t":10,"event":"connected"}"#)
        for index in 1...30 {
            // Speed 30 km/h, cadence 80, power 150 + index.
            let power = 150 + index
            let hex = String(format: "4400b80ba000%02x%02x", power & 0xFF, power >> 8)
            lines.append(#"{"t":\#(10 + Double(index) * 0.05),"uuid":"2ad2","op":"notify","hex":"\#(hex)"}"#)
        }
        let path = directory.appendingPathComponent("ride.ftmscap").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Replays the ride with `replay --realtime --publish` and runs `watch` with `arguments`
    /// on its socket (plus `--socket`), as two processes.
    static func watchReplay(_ arguments: [String]) async throws -> (watched: ProcessRunner.Result, replayed: ProcessRunner.Result) {
        let scratch = try TemporaryDirectory(prefix: "publish")
        let directory = scratch.url
        let capture = try Self.capture(in: directory)
        let socket = directory.appendingPathComponent("metrics.sock").path
        let replay = Task {
            try await ProcessRunner.run(["replay", "--realtime", "--publish", socket, capture], timeout: .seconds(400))
        }
        // The whole suite starts at once on CI, so the replay process may take a while to come up
        // (a fresh clone's CI once stalled the suite for 80 s, past an earlier 60 s deadline);
        // once its socket exists it waits ten seconds of capture time before the first event.
        let deadline = ContinuousClock.now + .seconds(300)
        while !FileManager.default.fileExists(atPath: socket), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let watched = try await ProcessRunner.run(["watch", "--socket", socket] + arguments, timeout: .seconds(120))
        return (watched, try await replay.value)
    }

    @Test func aReaderSeesTheReplayedRideInOrderWithNoGap() async throws {
        let (watched, replayed) = try await Self.watchReplay(["--json", "--type", "sample", "--count", "30"])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(watched.status == 0, "\(watched.stderr)")

        let messages = watched.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(messages.count == watched.lines.count)
        let samples = messages.filter { $0["type"] as? String == "sample" }
        #expect(samples.count == 30)
        let powers = samples.compactMap { ($0["payload"] as? [String: Any])?["instantaneous_power_w"] as? Int }
        #expect(powers == Array(151...180))
        // Every sample is one message after the previous one: the session_state messages
        // between them were filtered out by the watch request, not lost.
        let seqs = samples.compactMap { $0["seq"] as? Int }
        #expect(seqs == seqs.sorted() && Set(seqs).count == 30)
        #expect(samples.allSatisfy { $0["machine"] as? String == "SF-Bike-0007" && $0["version"] as? String == "1.0" })
        let times = samples.compactMap { $0["timestamp"] as? Double }
        #expect(times.first.map { abs($0 - 1_795_248_010.05) < 0.001 } == true, "\(times.prefix(2))")
        #expect(messages.first?["type"] as? String == "hello")
    }

    /// `watch --table` (the terminal default, forced on a pipe): one row per machine, folded by
    /// the dashboard's FloorState, its last frame showing the ride's last sample.
    @Test func watchTableShowsOneRowPerMachineWithTheLatestValues() async throws {
        let (watched, _) = try await Self.watchReplay(["--table", "--type", "sample", "--count", "30"])
        #expect(watched.status == 0, "\(watched.stderr)")
        let frames = watched.stdout.components(separatedBy: "\n\n").filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        let last = try #require(frames.last).split(separator: "\n").map(String.init)
        #expect(last.first?.hasPrefix("MACHINE") == true && last.first?.contains("POWER") == true, "\(last)")
        let row = try #require(last.dropFirst().first)
        #expect(last.count == 2, "one machine, one row: \(last)")
        #expect(row.hasPrefix("SF-Bike-0007") && row.contains("bike") && row.contains("180 W") && row.contains("80 rpm"), "\(row)")
        #expect(!watched.stdout.contains("\u{1B}["), "no terminal codes on a pipe")
        let lines = try await ProcessRunner.run(["watch", "--socket", "/nonexistent/metrics.sock", "--table", "--json"], timeout: .seconds(10))
        #expect(lines.status != 0 && lines.stderr.contains("--table"))
    }

    @Test func watchWithoutADaemonIsAOneLineError() async throws {
        let result = try await ProcessRunner.run(["watch", "--socket", "/nonexistent/metrics.sock"], timeout: .seconds(10))
        #expect(result.status == 1)
        #expect(result.stderr == "ftms-bridge: watch: /nonexistent/metrics.sock: No such file or directory (is the daemon running?)\n")
    }
}

import TestSupport
import Foundation
import Testing

/// `queue --plot ID out.svg`: a session queued by `replay --queue` (the daemon's pipeline,
/// series included) drawn from its stored series by the same renderer as `replay --plot`, read
/// back with an XML parser; unknown ids and sessions without a series are one-line errors.
@Suite("queue --plot")
struct QueuePlotTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Queues `capture`'s sessions in `state` and returns their ids.
    static func queue(_ capture: String, in state: TemporaryDirectory) async throws -> [String] {
        let replay = try await ProcessRunner.run(
            ["replay", root.appendingPathComponent("captures/\(capture)").path, "--queue", "--state-dir", state.path], timeout: .seconds(60))
        #expect(replay.status == 0, "\(replay.stderr)")
        let list = try await ProcessRunner.run(["queue", "--state-dir", state.path, "--json"], timeout: .seconds(30))
        #expect(list.status == 0, "\(list.stderr)")
        return try list.stdout.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return try #require(object?["session_id"] as? String)
        }
    }

    static func plot(_ id: String, in state: TemporaryDirectory) async throws -> (status: Int32, stderr: String, file: String) {
        let file = state.file("\(id).svg")
        let result = try await ProcessRunner.run(["queue", "--state-dir", state.path, "--plot", id, file], timeout: .seconds(30))
        return (result.status, result.stderr, file)
    }

    @Test func aQueuedBikeRideIsDrawnLikeItsReplay() async throws {
        let state = try TemporaryDirectory(prefix: "queue-plot")
        let id = try #require(try await Self.queue("bike-steady.ftmscap", in: state).first)
        let result = try await Self.plot(id, in: state)
        #expect(result.status == 0, "\(result.stderr)")
        let (svg, panels) = try ReplayPlotTests.read(result.file)
        let (_, replayed) = try await ReplayPlotTests.plot("bike-steady.ftmscap")
        #expect(panels.map(\.series) == ["power", "cadence", "heart_rate"])
        #expect(panels.map(\.series) == replayed.map(\.series))
        #expect(svg.all.filter { $0.name == "line" && $0.attributes["class"]?.hasPrefix("axis") == true }.count == 2 * panels.count)
        #expect(svg.all.filter { $0.name == "path" }.count == panels.count, "one path per series")
        // The scenario: 600 s at 165 W; the stored series is the ride's own range.
        let power = try #require(panels.first)
        #expect(power.max == 165 && power.min >= 0, "power \(power.min)...\(power.max)")
        let seconds = Double(svg.all.first?.attributes["data-seconds"] ?? "") ?? 0
        #expect((600...800).contains(seconds), "the plot spans the session: \(seconds) s")
        for (stored, replay) in zip(panels, replayed) {
            #expect(stored.max <= replay.max && stored.min >= replay.min, "\(stored.series) within the capture's range")
            // At most one point a second of the session.
            #expect(stored.points.count >= 600 && stored.points.count <= Int(seconds) + 1, "\(stored.series): \(stored.points.count) points")
            #expect(stored.points.allSatisfy { (stored.top - 0.05...stored.bottom + 0.05).contains($0.y) })
            #expect(zip(stored.points, stored.points.dropFirst()).allSatisfy { $0.x < $1.x }, "one point per second, in time order")
        }
    }

    @Test func aQueuedRowIsPaceAndStrokeRate() async throws {
        let state = try TemporaryDirectory(prefix: "queue-plot")
        let id = try #require(try await Self.queue("rower-viking-split.ftmscap", in: state).first)
        let result = try await Self.plot(id, in: state)
        #expect(result.status == 0, "\(result.stderr)")
        let (_, panels) = try ReplayPlotTests.read(result.file)
        #expect(panels.map(\.series).prefix(2) == ["pace", "stroke_rate"])
        let strokes = try #require(panels.first { $0.series == "stroke_rate" })
        #expect(strokes.max <= 27 && strokes.max >= 24, "stroke rate \(strokes.min)...\(strokes.max)")
    }

    @Test func anUnknownIDIsAOneLineError() async throws {
        let state = try TemporaryDirectory(prefix: "queue-plot")
        _ = try await Self.queue("bike-steady.ftmscap", in: state)
        let result = try await Self.plot("00000000-0000-4000-8000-000000000000", in: state)
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("no session 00000000-0000-4000-8000-000000000000"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: result.file))
    }

    /// A session from before series were kept (its series deleted here by another process).
    @Test func aSessionWithoutASeriesIsAOneLineError() async throws {
        let state = try TemporaryDirectory(prefix: "queue-plot")
        let id = try #require(try await Self.queue("bike-steady.ftmscap", in: state).first)
        let sqlite = try await runProgram(["/usr/bin/env", "sqlite3", state.file("ftms-bridge.sqlite"), "PRAGMA foreign_keys = ON; DELETE FROM session_series;"])
        #expect(sqlite.status == 0)
        let result = try await Self.plot(id, in: state)
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("has no stored series"), "\(result.stderr)")
    }

    @Test func plotNeedsItsOutputFile() async throws {
        let state = try TemporaryDirectory(prefix: "ftms-plot")
        let result = try await ProcessRunner.run(["queue", "--plot", "x", "--state-dir", state.path], timeout: .seconds(10))
        #expect(result.status != 0 && result.stderr.contains("--plot ID needs the SVG file"))
    }
}

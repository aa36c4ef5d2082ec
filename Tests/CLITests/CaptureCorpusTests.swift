import Foundation
import Testing

/// The replay regression corpus (contract §8, gpsd's design): every capture in `captures/` is
/// replayed by the built binary with `replay --json` and held to two answers.
///
/// - `NAME.expected.json` was worked out analytically by `scripts/make-captures.py` from the
///   scenario that produced the capture, never from this code: session count exact, times within
///   1 s, duration and totals within 1 % (never tighter than what a whole-number summary or a
///   machine counter can show). It says whether the engine is right.
/// - `NAME.golden.jsonl` is the exact output the binary gave when it was last reviewed: any byte
///   that changes is a behaviour change someone must explain (gpsd's `.chk` files).
///
/// A disagreement the expected file lists under `known_issue` is recorded as a known issue, so
/// the suite stays green while it is open and fails once the engine is fixed, until the entry
/// is removed.
@Suite("capture corpus")
struct CaptureCorpusTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("captures")

    static let captures: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
        .filter { $0.hasSuffix(".ftmscap") || $0.hasSuffix(".btsnoop") }
        .sorted()

    @Test func everyCaptureHasAnExpectationAndAGoldenFile() throws {
        #expect(Self.captures.count >= 8, "the corpus holds \(Self.captures.count) captures")
        #expect(Self.captures.contains { $0.hasSuffix(".btsnoop") }, "the corpus needs a btsnoop capture")
        for capture in Self.captures {
            for companion in [Self.expectedFile(capture), Self.goldenFile(capture)] {
                #expect(FileManager.default.fileExists(atPath: companion.path), "\(capture) has no \(companion.lastPathComponent)")
            }
        }
    }

    @Test(arguments: captures)
    func replayAgreesWithTheAnalyticExpectation(_ capture: String) async throws {
        let expectation = try JSONDecoder.snakeCase.decode(Expectation.self, from: Data(contentsOf: Self.expectedFile(capture)))
        #expect(expectation.capture == capture)
        let replay = try await Self.replay(capture)
        #expect(replay.status == 0, "exit status \(replay.status): \(replay.stderr)")
        let sessions = try replay.lines.map { try JSONDecoder.snakeCase.decode(Figures.self, from: Data($0.utf8)) }
        #expect(sessions.count == expectation.sessionsKept, "sessions kept:\n\(replay.stdout)")
        #expect(replay.dropReasons.count == expectation.sessionsDropped, "sessions dropped:\n\(replay.stderr)")
        #expect(replay.dropReasons == expectation.dropped.map { Self.reasonKey($0.reason) }, "drop reasons:\n\(replay.stderr)")

        for (index, (expected, got)) in zip(expectation.sessions, sessions).enumerated() {
            for check in Self.checks(expected, got, tolerance: expectation.tolerance) {
                let comment = Comment(rawValue: "\(capture) session \(index + 1) \(check.field): \(check.message)")
                if let issue = expectation.knownIssue, issue.fields.contains(check.field) {
                    withKnownIssue(Comment(rawValue: issue.note)) { #expect(check.passed, comment) }
                } else {
                    #expect(check.passed, comment)
                }
            }
        }
    }

    @Test(arguments: captures)
    func replayMatchesItsGoldenOutputByteForByte(_ capture: String) async throws {
        let golden = try String(contentsOf: Self.goldenFile(capture), encoding: .utf8)
        let replay = try await Self.replay(capture)
        #expect(replay.status == 0, "exit status \(replay.status): \(replay.stderr)")
        #expect(replay.stdout == golden, "\(capture) differs from its golden file:\n\(Self.diff(golden, replay.stdout))")
    }

    // MARK: Replaying

    struct Replay {
        let status: Int32
        let stdout: String
        let stderr: String

        var lines: [Substring] { stdout.split(separator: "\n") }

        /// The reasons of the `… session ID dropped: REASON` lines, in order.
        var dropReasons: [String] {
            stderr.split(separator: "\n").compactMap { line in
                line.range(of: " dropped: ").map { CaptureCorpusTests.reasonKey(String(line[$0.upperBound...])) }
            }
        }
    }

    static func replay(_ capture: String) async throws -> Replay {
        let result = try await ProcessRunner.run(["replay", "--json", directory.appendingPathComponent(capture).path])
        return Replay(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    static func expectedFile(_ capture: String) -> URL { companion(capture, "expected.json") }
    static func goldenFile(_ capture: String) -> URL { companion(capture, "golden.jsonl") }

    private static func companion(_ capture: String, _ suffix: String) -> URL {
        directory.appendingPathComponent((capture as NSString).deletingPathExtension + "." + suffix)
    }

    /// `too_short`, `tooShort` and `TooShort` name the same reason.
    static func reasonKey(_ reason: String) -> String {
        reason.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "").lowercased()
    }

    // MARK: The expected file and the summaries

    /// What an expected session and a `replay --json` summary both say, under the summary's
    /// names (contract §5): the expected file is written in the summary's shape.
    struct Figures: Decodable {
        struct Detail: Decodable {
            let energyMethod: String
            let distanceMethod: String
            let endReason: String
        }

        let startedAt: String
        let endedAt: String
        let duration: Double
        let totalDistance: Double
        let totalEnergy: Double
        let detail: Detail
        /// Expected sessions only: the smallest step each total can show (a counter's unit, or
        /// 0.5 for an integral the summary rounds to whole units).
        let resolution: [String: Double]?
    }

    struct Expectation: Decodable {
        struct Dropped: Decodable { let reason: String }

        struct Tolerance: Decodable {
            let timesS: Double
            let totalsRelative: Double
        }

        struct KnownIssue: Decodable {
            let fields: [String]
            let note: String
        }

        let capture: String
        let sessionsKept: Int
        let sessionsDropped: Int
        let sessions: [Figures]
        let dropped: [Dropped]
        let tolerance: Tolerance
        let knownIssue: KnownIssue?
    }

    struct Check {
        let field: String
        let passed: Bool
        let message: String
    }

    static func checks(_ expected: Figures, _ got: Figures, tolerance: Expectation.Tolerance) -> [Check] {
        func time(_ field: String, _ expected: String, _ got: String) -> Check {
            let gap = (seconds(iso8601: got) ?? .nan) - (seconds(iso8601: expected) ?? .nan)
            return Check(
                field: field, passed: abs(gap) <= tolerance.timesS,
                message: "expected \(expected) ± \(tolerance.timesS) s, got \(got) (\(gap) s)")
        }
        func amount(_ field: String, _ expected: Double, _ got: Double, resolution: Double) -> Check {
            let allowed = max(tolerance.totalsRelative * abs(expected), resolution)
            return Check(
                field: field, passed: abs(got - expected) <= allowed,
                message: "expected \(expected) ± \((allowed * 1000).rounded() / 1000), got \(got)")
        }
        func same(_ field: String, _ expected: String, _ got: String) -> Check {
            Check(field: field, passed: expected == got, message: "expected \(expected), got \(got)")
        }
        return [
            time("started_at", expected.startedAt, got.startedAt),
            time("ended_at", expected.endedAt, got.endedAt),
            amount("duration", expected.duration, got.duration, resolution: 0.5),
            amount("total_distance", expected.totalDistance, got.totalDistance,
                resolution: expected.resolution?["total_distance"] ?? 0.5),
            amount("total_energy", expected.totalEnergy, got.totalEnergy,
                resolution: expected.resolution?["total_energy"] ?? 0.5),
            same("distance_method", expected.detail.distanceMethod, got.detail.distanceMethod),
            same("energy_method", expected.detail.energyMethod, got.detail.energyMethod),
            same("end_reason", expected.detail.endReason, got.detail.endReason),
        ]
    }

    /// Seconds since the epoch of `2026-03-02T06:30:20Z` or `…:20.25Z`.
    static func seconds(iso8601 text: String) -> Double? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)?.timeIntervalSince1970
    }

    // MARK: Showing a difference

    /// Line by line, `-` for the golden file and `+` for this run; for a changed line, the first
    /// differing column with some context either side, since a summary is one long line.
    static func diff(_ expected: String, _ got: String) -> String {
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let new = got.split(separator: "\n", omittingEmptySubsequences: false)
        var out: [String] = []
        for index in 0..<max(old.count, new.count) {
            let before = index < old.count ? old[index] : nil
            let after = index < new.count ? new[index] : nil
            guard before != after else { continue }
            out.append("line \(index + 1):")
            if let before { out.append("- \(before)") }
            if let after { out.append("+ \(after)") }
            if let before, let after {
                let column = zip(before, after).prefix { $0 == $1 }.count
                out.append("  first difference at column \(column + 1): …\(excerpt(before, column)) → …\(excerpt(after, column))")
            }
        }
        return out.joined(separator: "\n")
    }

    private static func excerpt(_ line: Substring, _ column: Int) -> Substring {
        let start = line.index(line.startIndex, offsetBy: max(0, column - 30), limitedBy: line.endIndex) ?? line.endIndex
        let end = line.index(start, offsetBy: 70, limitedBy: line.endIndex) ?? line.endIndex
        return line[start..<end]
    }
}

extension JSONDecoder {
    static var snakeCase: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}

import OwnThread
import TestSupport
import DeterministicRandom
import Foundation
import Testing

/// `ftms-bridge decode` on several threads prints byte for byte what one decoder prints
/// (`--threads 1`, the stream of ``DecodeStream``): the same JSON, the same numbered errors,
/// the same exit status and summary, over random inputs that cross many chunks and hold every
/// kind of line (frames in both spellings and others, CRLF, comments, blanks, garbage, lines
/// longer than any frame inside a chunk and longer than a chunk, a last line without a
/// newline).
@Suite("ftms-bridge decode: parallel chunks against one decoder")
struct ParallelDecodeTests {
    static let chunk = 1 << 17

    static func hexFrame(_ random: inout SplitMix64, spaced: Bool) -> String {
        let length = Int.random(in: 0...24, using: &random)
        let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
        let digits = bytes.map { String(format: "%02x", $0) }
        return digits.joined(separator: spaced ? " " : "")
    }

    /// One random input of roughly `lines` lines; `longLines` adds lines longer than any frame.
    /// Megabytes of text, made on a thread of its own: seconds of computing on the
    /// cooperative pool would stall every other suite's timers and processes meanwhile.
    static func input(seed: UInt64, lines: Int, longLines: Bool) async -> Data {
        await onOwnThread { makeInput(seed: seed, lines: lines, longLines: longLines) }
    }

    private static func makeInput(seed: UInt64, lines: Int, longLines: Bool) -> Data {
        var random = SplitMix64(seed: seed)
        var text = ""
        text.reserveCapacity(lines * 40)
        for _ in 0..<lines {
            let pick = Int.random(in: 0..<100, using: &random)
            switch pick {
            case 0..<55: text += hexFrame(&random, spaced: false)
            case 55..<85: text += hexFrame(&random, spaced: true)
            case 85..<88: text += hexFrame(&random, spaced: true).replacingOccurrences(of: " ", with: ":")
            case 88..<90: text += "# a comment " + hexFrame(&random, spaced: true)
            case 90..<92: text += ["", "   ", "\t"][Int.random(in: 0..<3, using: &random)]
            case 92..<95: text += "zz" + hexFrame(&random, spaced: false)
            case 95..<97: text += hexFrame(&random, spaced: false) + "\r"
            case 97..<98: text += String(hexFrame(&random, spaced: true).dropLast())
            default:
                if longLines, Int.random(in: 0..<40, using: &random) == 0 {
                    // Longer than any frame: inside a chunk, or longer than a whole chunk.
                    let length = Bool.random(using: &random) ? Int.random(in: 70_000...100_000, using: &random) : Int.random(in: 140_000...400_000, using: &random)
                    text += String(repeating: "a", count: length)
                } else {
                    text += "44 02 da 02 02 01 22 01 00"
                }
            }
            text += "\n"
        }
        if Bool.random(using: &random) { text += hexFrame(&random, spaced: true) }  // no newline at the end
        return Data(text.utf8)
    }

    static func decode(_ file: URL, characteristic: String, threads: Int) async throws -> ProcessRunner.Result {
        try await ProcessRunner.run(["decode", characteristic, "--threads", "\(threads)", "--chunk-bytes", "\(chunk)"], stdinFile: file)
    }

    static func compare(_ data: Data, characteristic: String, threads: [Int]) async throws {
        let scratch = try TemporaryDirectory(prefix: "parallel")
        let file = URL(fileURLWithPath: scratch.file("input"))
        try data.write(to: file)
        let reference = try await decode(file, characteristic: characteristic, threads: 1)
        #expect(reference.status == 0 || reference.status == 1, "\(reference.stderr)")
        #expect(!reference.stdout.isEmpty)
        for count in threads {
            let parallel = try await decode(file, characteristic: characteristic, threads: count)
            #expect(parallel.status == reference.status, "\(count) threads")
            #expect(parallel.stderr == reference.stderr, "\(count) threads")
            if parallel.stdout != reference.stdout {
                let a = reference.lines, b = parallel.lines
                let first = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
                Issue.record("\(count) threads: output differs from one decoder at line \(first + 1) of \(a.count) (got \(b.count)): \(a.count > first ? String(a[first].prefix(160)) : "-") vs \(b.count > first ? String(b[first].prefix(160)) : "-")")
            }
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func randomInputsWithBadAndLongLines(seed: UInt64) async throws {
        // About 3 MB: some 25 chunks of 128 KiB.
        try await Self.compare(await Self.input(seed: seed, lines: 80_000, longLines: true), characteristic: "2ad2", threads: [2, 3])
    }

    @Test(arguments: ["2ad1", "2ada", "2acc", "2ad9"])
    func everyCharacteristicWithoutLongLines(characteristic: String) async throws {
        try await Self.compare(await Self.input(seed: 15, lines: 60_000, longLines: false), characteristic: characteristic, threads: [2])
    }

    /// A clean input: exit 0, and an error in the very last line still gets its number.
    @Test func cleanInputThenOneBadLastLine() async throws {
        var text = String(repeating: "44 02 da 02 02 01 22 01 00\n4402da0202012201\n", count: 50_000)
        try await Self.compare(Data(text.utf8), characteristic: "2ad2", threads: [2, 4])
        text += "not hex"
        try await Self.compare(Data(text.utf8), characteristic: "2ad2", threads: [2])
    }

    /// Input that is one line too long for any chunk, from the first byte.
    @Test func onlyAnOverLongLine() async throws {
        try await Self.compare(Data((String(repeating: "ab", count: 300_000) + "\n01 00\n").utf8), characteristic: "2ad2", threads: [2])
    }

    @Test func emptyInput() async throws {
        let scratch = try TemporaryDirectory(prefix: "empty")
        for threads in [1, 2] {
            let file = URL(fileURLWithPath: scratch.file("empty-\(threads)"))
            try Data().write(to: file)
            let result = try await Self.decode(file, characteristic: "2ad2", threads: threads)
            #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty)
        }
    }
}

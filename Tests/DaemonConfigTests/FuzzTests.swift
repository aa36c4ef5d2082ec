import DeterministicRandom
import DaemonConfig
import Foundation
import Testing

/// Whatever bytes are in the file, the answer is a config or a one-line error; never a trap.
/// (A trap would kill the test process, so reaching the end of each loop is the assertion,
/// along with the checks on each error.)
@Suite("Config fuzz")
struct FuzzTests {
    /// `FTMS_FUZZ_SCALE=50` runs fifty times as many inputs, for a longer local search.
    static let scale = max(1, Int(ProcessInfo.processInfo.environment["FTMS_FUZZ_SCALE"] ?? "") ?? 1)

    @Test(arguments: [UInt64(11), 12, 13])
    func randomBytes(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var accepted = 0
        for _ in 0..<600 * Self.scale {
            let bytes = random.bytes(count: Int.random(in: 0...300, using: &random))
            if check(bytes, seed: seed) { accepted += 1 }
        }
        // Random bytes are almost never a valid config; some empty or whitespace ones are.
        #expect(accepted < 60 * Self.scale)
    }

    /// Random bytes drawn from TOML's own alphabet get much further into the parser.
    @Test(arguments: [UInt64(21), 22, 23])
    func randomTOMLishText(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let alphabet = Array("[]{}=\"'.,#\n \t0123456789-+_:abcdefghijklmnopqrstuvwxyzeEnaif\\uU".utf8)
        for _ in 0..<800 * Self.scale {
            let bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? 0x20 }
            _ = check(bytes, seed: seed)
        }
    }

    /// TOML's tokens in random order: headers, arrays and inline tables nest and break in the
    /// ways that reach toml++'s error paths (two of which abort a debug build: see
    /// `TOMLPrecheck`).
    @Test(arguments: [UInt64(41), 42, 43, 44])
    func randomTOMLTokens(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let pieces = ["[", "[[", "]", "]]", "=", " ", ".", "\"", "'", "\"\"\"", "'''", "\n", "{", "}", ",", "a", "b", "1", "+", "-",
                      "inf", "nan", "#", "\\", "\t", "true", "1979-05-27", "T", ":", "e", "_", "0x", "0o", "log", "level", "machines"]
        for _ in 0..<1500 * Self.scale {
            let text = (0..<Int.random(in: 1...30, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
            _ = check(Array(text.utf8), seed: seed)
        }
    }

    /// The example file with keys uncommented, lines repeated, bytes flipped, cut or inserted.
    @Test(arguments: [UInt64(31), 32, 33, 34])
    func mutationsOfTheExample(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let lines = DaemonConfig.exampleFile.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var kinds: Set<String> = []
        for _ in 0..<400 * Self.scale {
            var mutated = lines.map { line in line.hasPrefix("#") && !line.hasPrefix("# ") && Bool.random(using: &random) ? String(line.dropFirst()) : line }
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let index = Int.random(in: 0..<mutated.count, using: &random)
                switch Int.random(in: 0...3, using: &random) {
                case 0: mutated.insert(mutated[index], at: index)
                case 1: mutated.remove(at: index)
                case 2: mutated[index] = String(mutated[index].reversed())
                default: mutated.swapAt(index, Int.random(in: 0..<mutated.count, using: &random))
                }
            }
            var bytes = Array(mutated.joined(separator: "\n").utf8)
            for _ in 0..<Int.random(in: 0...4, using: &random) where !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0...2, using: &random) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.remove(at: index)
                default: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
                }
            }
            do {
                _ = try DaemonConfig.parse(bytes: bytes, source: "example")
                kinds.insert("accepted")
            } catch {
                #expect(error.isOneLine && error.description.hasPrefix("example"))
                kinds.insert("\(error.kind)")
            }
        }
        // The mutations reach both sides: some still parse, most are refused, for several reasons.
        #expect(kinds.contains("accepted"))
        #expect(kinds.count >= 4, "\(kinds)")
    }

    @Test func refusesWhatIsNotText() {
        let cases: [([UInt8], ConfigError.Kind, String)] = [
            ([0x5B, 0x6C, 0x6F, 0x67, 0x5D, 0x00], .notText, "NUL byte at offset 5"),
            ([0x61, 0x20, 0x3D, 0x20, 0xFF, 0xFE], .notText, "not UTF-8 text (offset 4)"),
            ([0xC3], .notText, "not UTF-8"),
            (Array(repeating: 0x23, count: (1 << 20) + 1), .unreadable, "at most 1048576 bytes"),
        ]
        for (bytes, kind, fragment) in cases {
            #expect {
                try DaemonConfig.parse(bytes: bytes, source: "config.toml")
            } throws: { error in
                guard let error = error as? ConfigError else { return false }
                return error.kind == kind && error.description.contains(fragment) && error.isOneLine
            }
        }
        // A huge file of comments is still refused as text, before TOML sees it.
        #expect(throws: ConfigError.self) { try DaemonConfig.parse(String(repeating: "# comment\n", count: 200_000)) }
        #expect(throws: ConfigError.self) { try DaemonConfig.parse("[log]\u{0}level = \"info\"") }
    }

    /// Deep nesting is refused by the parser, not by a stack overflow.
    @Test func deepNesting() {
        for depth in [10, 300, 5000] {
            let text = "[machines]\nallow = " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "\n"
            #expect(throws: ConfigError.self) { try DaemonConfig.parse(text) }
            let inline = "machines = " + String(repeating: "{a = ", count: depth) + "1" + String(repeating: "}", count: depth) + "\n"
            #expect(throws: ConfigError.self) { try DaemonConfig.parse(inline) }
        }
    }

    /// One input: a config, or an error that is one line and names the source.
    private func check(_ bytes: [UInt8], seed: UInt64) -> Bool {
        do {
            _ = try DaemonConfig.parse(bytes: bytes, source: "fuzz")
            return true
        } catch {
            #expect(error.isOneLine && error.description.hasPrefix("fuzz"), "seed \(seed): \(error.description)")
            return false
        }
    }
}

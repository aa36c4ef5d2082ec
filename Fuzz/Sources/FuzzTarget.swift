import JSON
import FTMS

#if canImport(Glibc)
import Glibc
#endif

/// Fuzz target for every FTMS decoder.
///
/// The first input byte picks the characteristic, the rest is the value; a first byte of
/// 0xF0 or more instead feeds the rest to the hex parser, the CLI's first contact with
/// untrusted text. Beyond "never
/// traps", each input checks the codec's invariants: the JSON is well formed, a value that
/// decoded cleanly re-encodes to the same bytes, and the merger accepts any record. A broken
/// invariant stops the run with the input saved by libFuzzer.
///
/// Built with `-sanitize=fuzzer -DFUZZING` by `scripts/fuzz.sh`, this is a libFuzzer target.
/// Built plainly (as `swift build` does), it runs the same check over a seeded random
/// stream and over files named on the command line, so the harness itself stays compiled
/// and runnable everywhere.
enum FuzzTarget {
    nonisolated(unsafe) static var json = JSONBuffer(capacity: 4096)
    nonisolated(unsafe) static var bikeMerger = RecordMerger(kind: .indoorBikeData)
    nonisolated(unsafe) static var rowerMerger = RecordMerger(kind: .rowerData)
    nonisolated(unsafe) static var clock = Duration.zero

    nonisolated(unsafe) static var frame = [UInt8](repeating: 0, count: Hex.maximumFrameLength)

    static func check(_ input: UnsafeRawBufferPointer) {
        guard let selector = input.first else { return }
        if selector >= 0xF0 {
            checkHex(UnsafeRawBufferPointer(rebasing: input.dropFirst()).bindMemory(to: UInt8.self))
            return
        }
        let characteristics = Characteristic.allCases
        let characteristic = characteristics[Int(selector) % characteristics.count]
        let value = UnsafeRawBufferPointer(rebasing: input.dropFirst())
        let message = FTMSMessage(characteristic: characteristic, decoding: value)

        json.removeAll()
        message.writeJSON(into: &json)
        guard JSONShape.isBalancedObject(json.bytes) else {
            fatalError("malformed JSON for \(characteristic.shortUUID) \(Hex.string(value))")
        }

        if case .data = message { checkDataFrameWriter(characteristic, value) }

        var clean = !message.isTruncated
        if case .data(let record) = message {
            clean = clean && record.trailingBytes == 0
            clock += .milliseconds(Int(selector))
            if record.kind == .indoorBikeData {
                _ = bikeMerger.ingest(record, at: clock)
            } else {
                _ = rowerMerger.ingest(record, at: clock)
            }
        }
        if clean, !hasTrailingBytes(message), characteristic != .trainingStatus,
            message.encoded() != Array(value)
        {
            fatalError("re-encoding changed \(characteristic.shortUUID) \(Hex.string(value))")
        }
    }

    /// `decode`'s bulk path (``HexLineDecoder``, with its table-driven fast path for the common
    /// spellings) must print exactly what the general parser and the decoder print for a frame.
    static func checkLineDecoder(_ text: UnsafeBufferPointer<UInt8>) {
        var decoder = HexLineDecoder(characteristic: .indoorBikeData)
        json.removeAll()
        decoder.decode(argument: text, into: &json)
        let bulk = json.bytes
        json.removeAll()
        if text.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) {
            switch frame.withUnsafeMutableBufferPointer({ Hex.parse(text, into: $0) }) {
            case .success(let count):
                frame.withUnsafeBytes { bytes in
                    FTMSMessage(characteristic: .indoorBikeData, decoding: UnsafeRawBufferPointer(rebasing: bytes[..<count])).writeJSON(into: &json)
                }
                json.append(UInt8(ascii: "\n"))
            case .failure(let error):
                json.append("{\"line\":1,\"error\":")
                json.appendString(error.description)
                json.append("}\n")
            }
        }
        if bulk != json.bytes {
            fatalError("bulk decode differs from the general parser for \(Hex.string(Array(text)))")
        }
    }

    /// `decode`'s straight-to-JSON writer for data records must print what the record path
    /// (``DataRecord``, then its `writeJSON`, already in ``json``) prints for any bytes: the
    /// value goes through ``HexLineDecoder`` as one compact hex line.
    static func checkDataFrameWriter(_ characteristic: Characteristic, _ value: UnsafeRawBufferPointer) {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in value { text += [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]] }
        guard !text.isEmpty else { return }  // an empty line is blank, not a frame
        var decoder = HexLineDecoder(characteristic: characteristic)
        var line = JSONBuffer(capacity: 1024)
        text.withUnsafeBufferPointer { decoder.decode(argument: $0, into: &line) }
        if line.bytes != json.bytes + [UInt8(ascii: "\n")] {
            fatalError("bulk data-record JSON differs from the record path for \(characteristic.shortUUID) \(Hex.string(value))")
        }
    }

    /// Parsed hex re-printed and parsed again must give the same bytes.
    static func checkHex(_ text: UnsafeBufferPointer<UInt8>) {
        checkLineDecoder(text)
        let result = frame.withUnsafeMutableBufferPointer { Hex.parse(text, into: $0) }
        guard case .success(let count) = result else { return }
        let again = Hex.bytes(Hex.string(frame.prefix(count)))
        if again != Array(frame.prefix(count)) {
            fatalError("hex round trip changed \(Hex.string(frame.prefix(count)))")
        }
    }

    static func hasTrailingBytes(_ message: FTMSMessage) -> Bool {
        switch message {
        case .data(let record): record.trailingBytes > 0
        case .feature(let feature): feature.trailingBytes > 0
        case .status(let status): status.trailingBytes > 0
        case .controlPoint(.request(let request)): request.trailingBytes > 0
        case .controlPoint(.response(let response)): response.trailingBytes > 0
        case .trainingStatus(let status): status.trailingBytes > 0
        case .controlPoint(.empty): false
        case .range(let range): range.trailingBytes > 0
        }
    }
}

/// A cheap structural check of the JSON the codec writes: balanced braces and brackets
/// outside strings, one top-level object.
enum JSONShape {
    static func isBalancedObject(_ bytes: [UInt8]) -> Bool {
        guard bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else { return false }
        var depth = 0
        var inString = false
        var escaped = false
        for (index, byte) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                if byte < 0x20 { return false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth < 0 || (depth == 0 && index != bytes.count - 1) { return false }
            default: break
            }
        }
        return depth == 0 && !inString
    }
}

#if FUZZING
/// libFuzzer's documented entry for programs that keep their own `main`, which SwiftPM
/// requires of an executable target.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

@main
enum LibFuzzerMain {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            FuzzTarget.check(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
            return 0
        }
        exit(status)
    }
}
#else
@main
enum StandaloneFuzz {
    /// `ftms-fuzz [--runs N] [FILE...]`: replays files, then N seeded random inputs.
    static func main() {
        var arguments = CommandLine.arguments.dropFirst()
        var runs = 1_000_000
        if arguments.first == "--runs", arguments.count >= 2 {
            arguments.removeFirst()
            runs = Int(arguments.removeFirst()) ?? runs
        }
        for path in arguments {
            guard let bytes = readFile(path) else {
                print("ftms-fuzz: cannot read \(path)")
                continue
            }
            bytes.withUnsafeBytes(FuzzTarget.check)
        }
        var state: UInt64 = 0x46544D53
        var input = [UInt8](repeating: 0, count: 64)
        for _ in 0..<runs {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let count = Int(state >> 58)
            for index in 0..<count {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                input[index] = UInt8(truncatingIfNeeded: state >> 33)
            }
            input.withUnsafeBytes { FuzzTarget.check(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        }
        print("ftms-fuzz: \(runs) random inputs and \(arguments.count) files, no failure")
    }

    static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk.prefix(count)
        }
        return bytes
    }
}
#endif

import JSON
import ArgumentParser
import FTMS

#if canImport(Glibc)
import Glibc
#endif

/// `ftms-bridge decode CHARACTERISTIC [HEX ...]` (contract §3.1, §9).
///
/// One JSON object per frame, one per line, streamed: stdin is read in chunks of whole lines
/// that threads decode in parallel and write in order (``ParallelDecodeStream``), or with
/// `--threads 1` in 1 MiB blocks through one ``HexLineDecoder`` with output leaving from a
/// writer thread (``DecodeStream``); memory stays flat however many frames arrive. A line that is not
/// hex gets `{"line": N, "error": "…"}` and decoding goes on; the exit status then says
/// something failed.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode FTMS frames (hex) to JSON, one object per line.",
        discussion: """
            Each HEX argument is one frame, e.g. "44 02 da 02 02 01 22 01 00", "44:02:da", or \
            4402da. Without HEX, frames are read from stdin, one per line; blank lines and lines \
            starting with # are skipped.
            """
    )

    @Argument(help: "A 16-bit UUID (2ad2, 0x2AD2) or a name (indoor-bike-data).", transform: parseCharacteristic)
    var characteristic: Characteristic

    @Argument(help: "Frames as hex; stdin when none are given.")
    var hex: [String] = []

    @Option(help: "Threads decoding stdin (default: the online CPUs, at most 4; 1: one decoder, no chunks); the output is the same for any number.")
    var threads: Int?

    /// Input bytes per chunk handed to a thread; small values let tests cross many chunks.
    @Option(name: .customLong("chunk-bytes"), help: .hidden)
    var chunkBytes: Int = 1 << 18

    func validate() throws {
        if let threads, !(1...64).contains(threads) { throw ValidationError("--threads must be 1...64") }
        if chunkBytes < 1 << 17 { throw ValidationError("--chunk-bytes must be at least 131072") }
    }

    func run() throws {
        let threads = threads ?? min(4, max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        if hex.isEmpty, threads > 1 {
            let stream = ParallelDecodeStream(characteristic: characteristic, threads: threads, chunkBytes: chunkBytes)
            let readError = stream.run()
            if let readError {
                printError("decode: reading stdin failed (errno \(readError))")
                throw ExitCode(2)
            }
            if stream.failedLines > 0 {
                printError("decode: \(stream.failedLines) of \(stream.lines) lines could not be read")
                throw ExitCode(1)
            }
            return
        }
        var decoder = HexLineDecoder(characteristic: characteristic)
        if hex.isEmpty {
            // One thread: one decoder over the whole stream, the reference the parallel path is tested against.
            if let readError = DecodeStream.run(&decoder) {
                printError("decode: reading stdin failed (errno \(readError))")
                throw ExitCode(2)
            }
        } else {
            var json = JSONBuffer(capacity: 1 << 16)
            let output = BufferedOutput(descriptor: 1)
            for argument in hex {
                var utf8 = Array(argument.utf8)
                utf8.withUnsafeMutableBufferPointer { decoder.decode(argument: UnsafeBufferPointer($0), into: &json) }
                output.drain(&json)
            }
            output.drain(&json, force: true)
        }
        if decoder.failedLines > 0 {
            printError("decode: \(decoder.failedLines) of \(decoder.lineNumber) lines could not be read")
            throw ExitCode(1)
        }
    }
}

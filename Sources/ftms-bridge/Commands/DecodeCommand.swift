import ArgumentParser
import FTMS

/// `ftms-bridge decode CHARACTERISTIC [HEX ...]` (SPEC §3.1, §9).
///
/// One JSON object per frame, one per line, streamed: stdin is read in 1 MiB blocks and
/// decoded in place by ``HexLineDecoder``, and output leaves in 1 MiB writes from a thread
/// of their own (``DecodeStream``), so memory stays flat however many frames arrive. A line that is not
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

    func run() throws {
        var decoder = HexLineDecoder(characteristic: characteristic)
        if hex.isEmpty {
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

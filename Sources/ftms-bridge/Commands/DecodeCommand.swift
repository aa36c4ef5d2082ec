import ArgumentParser
import FTMS

/// `ftms-bridge decode CHARACTERISTIC [HEX ...]` (SPEC §3.1, §9).
///
/// One JSON object per frame, one per line, streamed: stdin is read through a fixed buffer
/// and output leaves in 64 KiB writes, so memory stays flat however many frames arrive. A
/// line that is not hex gets `{"line": N, "error": "…"}` and decoding goes on; the exit
/// status then says something failed.
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
        var session = DecodeSession(characteristic: characteristic)
        if hex.isEmpty {
            var reader = LineReader(descriptor: 0)
            let readError = reader.forEachLine { event in
                switch event {
                case .line(let text): session.decodeLine(text)
                case .tooLong(let length): session.reportError("line is \(length) bytes, longer than any frame")
                }
            }
            if let readError {
                session.finish()
                printError("decode: reading stdin failed (errno \(readError))")
                throw ExitCode(2)
            }
        } else {
            for argument in hex {
                var utf8 = Array(argument.utf8)
                utf8.withUnsafeMutableBufferPointer { session.decodeLine(UnsafeBufferPointer($0), skipComments: false) }
            }
        }
        session.finish()
        if session.failedLines > 0 {
            printError("decode: \(session.failedLines) of \(session.lineNumber) lines could not be read")
            throw ExitCode(1)
        }
    }
}

/// The per-line work of `decode`, with every buffer reused across lines.
struct DecodeSession: ~Copyable {
    let characteristic: Characteristic
    private(set) var lineNumber = 0
    private(set) var failedLines = 0
    private var frame = [UInt8](repeating: 0, count: Hex.maximumFrameLength)
    private var json = JSONBuffer(capacity: 1 << 17)
    private let output = BufferedOutput(descriptor: 1)

    init(characteristic: Characteristic) {
        self.characteristic = characteristic
    }

    mutating func decodeLine(_ text: UnsafeBufferPointer<UInt8>, skipComments: Bool = true) {
        lineNumber += 1
        guard let first = text.firstIndex(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else {
            return  // blank
        }
        if skipComments, text[first] == UInt8(ascii: "#") { return }
        let characteristic = self.characteristic
        let parsed = frame.withUnsafeMutableBufferPointer { output -> Result<FTMSMessage, Hex.ParseError> in
            Hex.parse(text, into: output).map { count in
                FTMSMessage(characteristic: characteristic, decoding: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(output)[..<count]))
            }
        }
        let message: FTMSMessage
        switch parsed {
        case .success(let decoded): message = decoded
        case .failure(let error):
            reportError(error.description)
            return
        }
        message.writeJSON(into: &json)
        json.append(UInt8(ascii: "\n"))
        output.drain(&json)
    }

    mutating func reportError(_ reason: String) {
        failedLines += 1
        json.append(UInt8(ascii: "{"))
        json.appendKey("line", first: true)
        json.appendInteger(lineNumber)
        json.appendKey("error")
        json.appendString(reason)
        json.append("}\n")
        output.drain(&json)
    }

    mutating func finish() {
        output.drain(&json, force: true)
    }
}

import FTMS

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads `.ftmscap` JSON lines (`docs/ftmscap.md`) one event at a time.
///
/// Lenient by design, because captures written by other people and tools are fed to it:
/// header fields flat or under `"machine"`, UUIDs in any common spelling, hex with or without
/// separators, connection events as `event` or `op`, unknown keys and unknown event kinds
/// skipped, blank lines and `#` comments ignored, CRLF endings and a BOM tolerated. What it
/// cannot read (broken JSON, an event with no time or an unreadable value) ends the read with a
/// ``CaptureError`` naming the line; every event before it has been returned.
public struct FtmscapReader: Sendable {
    public private(set) var header = CaptureHeader()
    /// Lines naming an event this reader does not model, such as `rssi`.
    public private(set) var skippedLines = 0
    /// Header fields this reader knows but could not read (a `feature` that is not hex…),
    /// left out of ``header`` rather than failing the capture.
    public private(set) var ignoredHeaderFields: [String] = []
    /// The 1-based number of the last line read.
    public private(set) var lineNumber = 0

    private let bytes: [UInt8]
    private var position = 0
    private var finished = false
    private var scratch = [UInt8](repeating: 0, count: Hex.maximumFrameLength)

    /// Reads the header line, if the capture has one; a capture that starts straight with
    /// events has an empty header, and its first line is left for ``next()``. Only a header
    /// line that cannot be read (broken JSON, an unreadable `feature`) fails here.
    public init(bytes: [UInt8]) throws(CaptureError) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        let start = position
        guard let line = nextContentLine() else { return }
        let lineNumber = self.lineNumber
        let header = try bytes.withBytes { (raw) throws(CaptureError) -> (header: CaptureHeader, ignored: [String])? in
            let text = UnsafeBufferPointer(rebasing: raw.assumingMemoryBound(to: UInt8.self)[line])
            var scanner = JSONLineScanner(text)
            do throws(JSONLineScanner.Failure) {
                let kind = try FtmscapLine(&scanner).kind(in: scanner)
                if kind != nil && kind != .header { return nil }
            } catch {
                throw CaptureError(.line(lineNumber, column: error.column), error.reason)
            }
            return try FtmscapHeaderLine.parse(text, line: lineNumber)
        }
        if let header {
            self.header = header.header
            ignoredHeaderFields = header.ignored
        } else {
            position = start  // an event: leave it for `next()`
            self.lineNumber = 0
        }
    }

    /// The next event, `nil` at the end, or the error that ended the read (once; `nil` after).
    public mutating func next() throws(CaptureError) -> CaptureEvent? {
        guard !finished else { return nil }
        let bytes = self.bytes
        while let line = nextContentLine() {
            let event = try bytes.withBytes { (raw) throws(CaptureError) -> LineEvent? in
                try parseEvent(UnsafeBufferPointer(rebasing: raw.assumingMemoryBound(to: UInt8.self)[line]))
            }
            switch event {
            case .event(let event): return event
            case .skipped?: skippedLines += 1
            case nil: skippedLines += 1  // a line with no event kind after the header
            }
        }
        finished = true
        return nil
    }

    /// Advances past the next line that is not blank or a `#` comment, returning its range
    /// without the line ending.
    private mutating func nextContentLine() -> Range<Int>? {
        let bytes = self.bytes
        return bytes.withUnsafeBufferPointer { file in
            while position < file.count {
                let start = position
                let end = Self.lineEnd(in: file, from: start)
                position = end + 1
                lineNumber += 1
                var first = start
                while first < end, file[first] == 0x20 || file[first] == 0x09 || file[first] == 0x0D { first += 1 }
                if first == end || file[first] == UInt8(ascii: "#") { continue }
                // The brackets of a file written as one JSON array, an object per line.
                if file[first] == UInt8(ascii: "["), Self.onlySpace(file, first + 1..<end) { continue }
                if file[first] == UInt8(ascii: "]"), Self.onlySpace(file, first + 1..<end) { continue }
                return start..<end
            }
            return nil
        }
    }

    private static func onlySpace(_ file: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        range.allSatisfy { file[$0] == 0x20 || file[$0] == 0x09 || file[$0] == 0x0D }
    }

    /// The index of the next `\n` at or after `start`, or the end of the file.
    private static func lineEnd(in file: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = file.baseAddress, start < file.count,
            let found = memchr(base + start, 0x0A, file.count - start)
        else { return file.count }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    private enum LineEvent {
        case event(CaptureEvent)
        case skipped
    }

    private mutating func fail(_ reason: String, column: Int? = nil) -> CaptureError {
        finished = true
        return CaptureError(.line(lineNumber, column: column), reason)
    }

    /// `nil` when the line records no event at all (a header, or metadata).
    private mutating func parseEvent(_ text: UnsafeBufferPointer<UInt8>) throws(CaptureError) -> LineEvent? {
        var scanner = JSONLineScanner(text)
        let line: FtmscapLine
        do {
            line = try FtmscapLine(&scanner)
        } catch {
            throw fail(error.reason, column: error.column)
        }
        guard let kind = line.kind(in: scanner) else { return nil }
        if kind == .other || kind == .header { return .skipped }
        guard let timeValue = line.time else { throw fail("event has no \"t\"") }
        guard let time = Self.time(timeValue, in: scanner) else { throw fail("\"t\" is not a number of seconds") }
        switch kind {
        case .connected: return .event(CaptureEvent(time: time, kind: .connected))
        case .disconnected: return .event(CaptureEvent(time: time, kind: .disconnected))
        case .other, .header: return .skipped
        case .attribute(let operation):
            guard let uuidValue = line.uuid else { throw fail("\(operation.rawValue) event has no \"uuid\"") }
            guard let uuid = Self.uuid(uuidValue, in: scanner) else {
                throw fail("\"uuid\" is not a 16-bit or 128-bit UUID")
            }
            guard let payload = line.payload else { throw fail("\(operation.rawValue) event has no \"hex\"") }
            let value = try self.value(payload, in: scanner)
            return .event(.attribute(operation, uuid, value, at: time))
        }
    }

    private static func time(_ value: FtmscapLine.Value, in scanner: JSONLineScanner) -> Duration? {
        switch value {
        case .bare(let range): DecimalSeconds.parse(scanner.bytes(range))
        case .text(let text) where !text.escaped: DecimalSeconds.parse(scanner.bytes(text.range))
        default: nil
        }
    }

    private static func uuid(_ value: FtmscapLine.Value, in scanner: JSONLineScanner) -> AttributeUUID? {
        guard case .text(let text) = value, !text.escaped else { return nil }
        if let uuid = AttributeUUID.parse(scanner.bytes(text.range)) { return uuid }
        // A characteristic name, as `ftmscap` users type them on the command line.
        let name = String(decoding: scanner.bytes(text.range), as: UTF8.self)
        return Characteristic(parsing: name).map(AttributeUUID.init)
    }

    /// Hex text or an array of byte numbers, into an inline value.
    private mutating func value(_ payload: FtmscapLine.Value, in scanner: JSONLineScanner) throws(CaptureError)
        -> AttributeValue
    {
        let lineNumber = self.lineNumber
        let parsed: Result<Int, CaptureError> = scratch.withUnsafeMutableBufferPointer { output in
            switch payload {
            case .text(let text) where !text.escaped:
                return Hex.parse(scanner.bytes(text.range), into: output).mapError {
                    CaptureError(.line(lineNumber, column: text.range.lowerBound + $0.column), "\"hex\": \($0)")
                }
            case .array(let range):
                return FtmscapLine.byteArray(scanner.bytes(range), into: output).mapError {
                    CaptureError(.line(lineNumber, column: range.lowerBound + $0.column), "byte array holds something other than numbers 0–255")
                }
            default:
                return .failure(CaptureError(.line(lineNumber, column: nil), "\"hex\" is not a hex string"))
            }
        }
        switch parsed {
        case .success(let count):
            return scratch.withUnsafeBytes { AttributeValue(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        case .failure(let error):
            finished = true
            throw error
        }
    }
}

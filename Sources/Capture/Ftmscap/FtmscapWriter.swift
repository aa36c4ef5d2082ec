public import JSON
import CivilTime
import FTMS

/// Writes canonical `.ftmscap` (`docs/ftmscap.md`): one JSON object and `\n` per line, keys in
/// a fixed order, lowercase hex without separators, times in their shortest exact decimal form.
///
/// Strict where the reader is lenient, so that every file we write reads back equal
/// (``FtmscapReader`` round trip) and diffs of recorded captures stay small. Lines go into a
/// caller-owned ``JSONBuffer``; the caller writes them where it likes (`monitor --record`
/// appends to a file), so the writer does no I/O and allocates nothing per event.
public enum FtmscapWriter {
    /// The format version the header's `"version"` carries.
    public static let version = 1

    /// `{"format":"ftmscap","version":1,"start":"…","machine":{…}}` and a newline.
    public static func appendHeader(_ header: CaptureHeader, to buffer: inout JSONBuffer) {
        buffer.append(UInt8(ascii: "{"))
        buffer.appendKey("format", first: true)
        buffer.appendString("ftmscap")
        buffer.appendKey("version")
        buffer.appendInteger(version)
        if let start = header.start {
            buffer.appendKey("start")
            if ISO8601.fourDigitYears.contains(start) {
                buffer.appendString(ISO8601.string(start))
            } else {
                DecimalSeconds.append(start, to: &buffer)  // outside years 0–9999: epoch seconds
            }
        }
        buffer.appendKey("machine")
        var first = true
        appendField("name", header.name, first: &first, to: &buffer)
        appendField("address", header.address, first: &first, to: &buffer)
        appendField("manufacturer", header.manufacturer, first: &first, to: &buffer)
        appendField("model", header.model, first: &first, to: &buffer)
        appendField("type", header.type?.rawValue, first: &first, to: &buffer)
        if let feature = header.feature {
            openField("feature", first: &first, to: &buffer)
            appendHexString(feature, to: &buffer)
        }
        if first { buffer.append(UInt8(ascii: "{")) }
        buffer.append("}}\n")
    }

    /// `{"t":12.5,"uuid":"2ad2","op":"notify","hex":"4402"}` or
    /// `{"t":12.5,"event":"disconnected"}`, and a newline.
    public static func appendEvent(_ event: CaptureEvent, to buffer: inout JSONBuffer) {
        buffer.append(UInt8(ascii: "{"))
        buffer.appendKey("t", first: true)
        DecimalSeconds.append(event.time, to: &buffer)
        switch event.kind {
        case .attribute(let operation, let uuid, let value):
            buffer.appendKey("uuid")
            appendUUID(uuid, to: &buffer)
            buffer.appendKey("op")
            buffer.appendString(operation.jsonName)
            buffer.appendKey("hex")
            value.withUnsafeBytes { appendHexString($0, to: &buffer) }
        case .connected:
            buffer.appendKey("event")
            buffer.appendString("connected")
        case .disconnected:
            buffer.appendKey("event")
            buffer.appendString("disconnected")
        }
        buffer.append("}\n")
    }

    /// A whole capture as file contents.
    public static func encode(header: CaptureHeader, events: some Sequence<CaptureEvent>) -> [UInt8] {
        var buffer = JSONBuffer(capacity: 4096)
        appendHeader(header, to: &buffer)
        for event in events { appendEvent(event, to: &buffer) }
        return buffer.bytes
    }

    private static func openField(_ key: StaticString, first: inout Bool, to buffer: inout JSONBuffer) {
        if first { buffer.append(UInt8(ascii: "{")) }
        buffer.appendKey(key, first: first)
        first = false
    }

    private static func appendField(
        _ key: StaticString, _ value: String?, first: inout Bool, to buffer: inout JSONBuffer
    ) {
        guard let value else { return }
        openField(key, first: &first, to: &buffer)
        buffer.appendString(value)
    }

    /// SIG UUIDs straight into the buffer, as their four digits; others through their text.
    private static func appendUUID(_ uuid: AttributeUUID, to buffer: inout JSONBuffer) {
        guard let short = uuid.short else { return buffer.appendString(uuid.description) }
        buffer.append(UInt8(ascii: "\""))
        for shift in stride(from: 12, through: 0, by: -4) { buffer.append(hexDigit(UInt8(truncatingIfNeeded: short >> UInt16(shift)) & 0xF)) }
        buffer.append(UInt8(ascii: "\""))
    }

    private static func appendHexString(_ bytes: some Sequence<UInt8>, to buffer: inout JSONBuffer) {
        buffer.append(UInt8(ascii: "\""))
        for byte in bytes {
            buffer.append(hexDigit(byte >> 4))
            buffer.append(hexDigit(byte & 0xF))
        }
        buffer.append(UInt8(ascii: "\""))
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ nibble &- 10
    }
}

extension AttributeOperation {
    var jsonName: StaticString {
        switch self {
        case .notify: "notify"
        case .indicate: "indicate"
        case .read: "read"
        case .write: "write"
        }
    }
}

import FTMS

/// What one `.ftmscap` event line holds, pulled out of its JSON without building strings.
///
/// The spellings accepted beyond the canonical ones (`docs/ftmscap.md`) are the ones other
/// capture tools and hand-written files use: `time`/`ts` for `t`, `chr`/`characteristic` for
/// `uuid`, `ev`/`event`/`type` for `op`, `value`/`data`/`bytes` for `hex`, and byte arrays.
struct FtmscapLine {
    enum Value {
        case text(JSONLineScanner.Text)
        case bare(Range<Int>)
        /// A JSON array: the range from `[` to `]`.
        case array(Range<Int>)
        case object
    }

    var time: Value?
    var uuid: Value?
    var kind: Value?
    /// `type` names the op in some tools but the machine type in headers, so it only counts
    /// when its value is an op.
    var typeKind: Value?
    var payload: Value?

    /// Scans the object's top-level members.
    init(_ scanner: inout JSONLineScanner) throws(JSONLineScanner.Failure) {
        try scanner.expect(UInt8(ascii: "{"), "a JSON object")
        var first = true
        while let key = try scanner.nextKey(&first) {
            let value = try Self.value(&scanner)
            switch Self.field(key, in: scanner) {
            case .time?: time = value
            case .uuid?: uuid = value
            case .kind?: kind = value
            case .type?: typeKind = value
            case .payload?: payload = value
            case nil: break
            }
        }
        try scanner.expectLineEnd()
    }

    private enum Field {
        case time, uuid, kind, type, payload
    }

    /// The canonical keys are checked first and by length, since every line has them.
    private static func field(_ key: JSONLineScanner.Text, in scanner: JSONLineScanner) -> Field? {
        switch key.range.count {
        case 1: return scanner.matches(key, "t") ? .time : nil
        case 2: return scanner.matches(key, "op") || scanner.matches(key, "ev") ? .kind : scanner.matches(key, "ts") ? .time : nil
        case 3: return scanner.matches(key, "hex") ? .payload : scanner.matches(key, "chr") ? .uuid : nil
        case 4:
            if scanner.matches(key, "uuid") { return .uuid }
            if scanner.matches(key, "time") { return .time }
            if scanner.matches(key, "kind") { return .kind }
            if scanner.matches(key, "type") { return .type }
            if scanner.matches(key, "char") { return .uuid }
            return scanner.matches(key, "data") ? .payload : nil
        case 5:
            if scanner.matches(key, "event") { return .kind }
            if scanner.matches(key, "value") { return .payload }
            return scanner.matches(key, "bytes") ? .payload : nil
        case 6...:
            if scanner.matches(key, "payload") { return .payload }
            if scanner.matches(key, "timestamp") { return .time }
            return scanner.matches(key, "characteristic") ? .uuid : nil
        default: return nil
        }
    }

    /// Reads one value, keeping scalars and arrays as ranges and skipping objects.
    static func value(_ scanner: inout JSONLineScanner) throws(JSONLineScanner.Failure) -> Value {
        switch scanner.peek() {
        case UInt8(ascii: "\"")?:
            return .text(try scanner.string())
        case UInt8(ascii: "[")?:
            let start = scanner.index
            try scanner.skipValue()
            return .array(start..<scanner.index)
        case UInt8(ascii: "{")?:
            try scanner.skipValue()
            return .object
        default:
            return .bare(try scanner.bareValue())
        }
    }

    /// What the line records.
    enum Kind: Equatable {
        case attribute(AttributeOperation)
        case connected
        case disconnected
        /// A line that calls itself the header (`"type": "header"`).
        case header
        /// An event this reader does not model (`rssi`, `services_resolved`…): skipped.
        case other
    }

    func kind(in scanner: JSONLineScanner) -> Kind? {
        if let kind, let named = Self.kind(kind, in: scanner) { return named }
        if let typeKind, let named = Self.kind(typeKind, in: scanner), named != .other { return named }
        // `{"type":"rower"}` is a header's machine type, not an event.
        if kind != nil { return .other }
        // A value and a UUID with no op is a notification, the only thing most tools record.
        return payload != nil && uuid != nil ? .attribute(.notify) : nil
    }

    private static func kind(_ value: Value, in scanner: JSONLineScanner) -> Kind? {
        guard case .text(let text) = value, !text.escaped else { return nil }
        var word = InlineArray<24, UInt8>(repeating: 0)
        var length = 0
        for position in text.range {
            let character = scanner.line[position]
            guard character != UInt8(ascii: "_"), character != UInt8(ascii: "-"), character != UInt8(ascii: " ")
            else { continue }
            guard length < 24 else { return .other }
            word[length] = character | (character >= UInt8(ascii: "A") && character <= UInt8(ascii: "Z") ? 0x20 : 0)
            length += 1
        }
        for (spelling, kind) in spellings where spelling.utf8CodeUnitCount == length {
            var same = true
            for offset in 0..<length where spelling.utf8Start[offset] != word[offset] {
                same = false
                break
            }
            if same { return kind }
        }
        return .other
    }

    /// Lowercase, with `_`, `-` and spaces removed before comparing.
    private static let spellings: [(StaticString, Kind)] = [
        ("notify", .attribute(.notify)), ("notification", .attribute(.notify)), ("notified", .attribute(.notify)),
        ("indicate", .attribute(.indicate)), ("indication", .attribute(.indicate)),
        ("indicated", .attribute(.indicate)),
        ("read", .attribute(.read)), ("readresponse", .attribute(.read)),
        ("write", .attribute(.write)), ("writerequest", .attribute(.write)), ("writecommand", .attribute(.write)),
        ("writewithoutresponse", .attribute(.write)), ("writereq", .attribute(.write)),
        ("writecmd", .attribute(.write)),
        ("connect", .connected), ("connected", .connected), ("connection", .connected),
        ("disconnect", .disconnected), ("disconnected", .disconnected), ("disconnection", .disconnected),
        ("header", .header), ("meta", .header), ("metadata", .header),
    ]

    struct ByteArrayFailure: Error {
        let column: Int
    }

    /// `[68, 2, 218]` → bytes; the failure is the 1-based column within the array text.
    static func byteArray(
        _ text: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>
    ) -> Result<Int, ByteArrayFailure> {
        var count = 0
        var current = -1
        for (offset, character) in text.enumerated() {
            let digit = character &- UInt8(ascii: "0")
            if digit < 10 {
                current = max(current, 0) * 10 + Int(digit)
                if current > 255 { return .failure(ByteArrayFailure(column: offset + 1)) }
            } else if character == UInt8(ascii: ",") || character == UInt8(ascii: "]") {
                if current >= 0 {
                    guard count < output.count else { return .failure(ByteArrayFailure(column: offset + 1)) }
                    output[count] = UInt8(current)
                    count += 1
                } else if character == UInt8(ascii: ",") {
                    return .failure(ByteArrayFailure(column: offset + 1))
                }
                current = -1
            } else if character != UInt8(ascii: "[") && character != UInt8(ascii: " ") && character != UInt8(ascii: "\t") {
                return .failure(ByteArrayFailure(column: offset + 1))
            }
        }
        return .success(count)
    }
}

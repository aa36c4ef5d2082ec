import CivilTime
import FTMS

/// The `.ftmscap` header line: the machine a capture recorded.
///
/// Fields may sit at the top level or inside `"machine"` (also `"header"` or `"device"`),
/// under the names other tools use too; the first spelling seen wins. Metadata this product
/// does not use (`format`, `version`, `notes`, `submitter`…) is skipped. A known field whose
/// value cannot be read (a `feature` that is not hex, a `start` that is not a time) is left
/// out and named in `ignored`, rather than failing the capture: everything replay needs is in
/// the events.
enum FtmscapHeaderLine {
    static func parse(
        _ text: UnsafeBufferPointer<UInt8>, line: Int
    ) throws(CaptureError) -> (header: CaptureHeader, ignored: [String]) {
        var scanner = JSONLineScanner(text)
        var header = CaptureHeader()
        var ignored: [String] = []
        do {
            try scanner.expect(UInt8(ascii: "{"), "a JSON object")
            try members(&scanner, into: &header, ignored: &ignored, depth: 0)
            try scanner.expectLineEnd()
        } catch {
            throw CaptureError(.line(line, column: error.column), error.reason)
        }
        return (header, ignored)
    }

    /// One object's members; the cursor is past its `{` and ends past its `}`.
    private static func members(
        _ scanner: inout JSONLineScanner, into header: inout CaptureHeader, ignored: inout [String], depth: Int
    ) throws(JSONLineScanner.Failure) {
        var first = true
        while let key = try scanner.nextKey(&first) {
            if scanner.peek() == UInt8(ascii: "{"), depth < 4,
                scanner.matches(key, "machine") || scanner.matches(key, "header") || scanner.matches(key, "device")
            {
                try scanner.expect(UInt8(ascii: "{"), "an object")
                try members(&scanner, into: &header, ignored: &ignored, depth: depth + 1)
                continue
            }
            let value = try FtmscapLine.value(&scanner)
            switch field(key, in: scanner) {
            case .name?: header.name = header.name ?? string(value, in: scanner)
            case .address?: header.address = header.address ?? string(value, in: scanner)
            case .manufacturer?: header.manufacturer = header.manufacturer ?? string(value, in: scanner)
            case .model?: header.model = header.model ?? string(value, in: scanner)
            case .type?:
                if header.type == nil, let text = string(value, in: scanner) {
                    header.type = MachineType(lenient: text)
                }
            case .feature?:
                guard header.feature == nil else { break }
                header.feature = feature(value, in: scanner)
                if header.feature == nil, !isNull(value, in: scanner) { ignored.append(try scanner.decode(key)) }
            case .start?:
                guard header.start == nil else { break }
                header.start = start(value, in: scanner)
                if header.start == nil, !isNull(value, in: scanner) { ignored.append(try scanner.decode(key)) }
            case nil:
                break
            }
        }
    }

    private enum Field {
        case name, address, manufacturer, model, type, feature, start
    }

    private static let names: [(StaticString, Field)] = [
        ("name", .name), ("local_name", .name), ("localName", .name), ("device_name", .name),
        ("complete_local_name", .name),
        ("address", .address), ("addr", .address), ("mac", .address), ("bdaddr", .address),
        ("device_address", .address),
        ("manufacturer", .manufacturer), ("manufacturer_name", .manufacturer), ("make", .manufacturer),
        ("vendor", .manufacturer),
        ("model", .model), ("model_number", .model),
        ("type", .type), ("machine_type", .type), ("kind", .type), ("machine_kind", .type),
        ("feature", .feature), ("features", .feature), ("feature_hex", .feature),
        ("fitness_machine_feature", .feature), ("feature_bytes", .feature),
        ("start", .start), ("started_at", .start), ("start_time", .start), ("recorded_at", .start),
        ("start_epoch", .start),
    ]

    private static func field(_ key: JSONLineScanner.Text, in scanner: JSONLineScanner) -> Field? {
        names.first { scanner.matches(key, $0.0) }?.1
    }

    private static func string(_ value: FtmscapLine.Value, in scanner: JSONLineScanner) -> String? {
        switch value {
        case .text(let text): return try? scanner.decode(text)
        case .bare(let range):
            let bare = String(decoding: scanner.bytes(range), as: UTF8.self)
            return bare == "null" ? nil : bare
        case .array, .object: return nil
        }
    }

    private static func isNull(_ value: FtmscapLine.Value, in scanner: JSONLineScanner) -> Bool {
        guard case .bare(let range) = value else { return false }
        return scanner.bytes(range).elementsEqual("null".utf8)
    }

    /// Hex text or a list of byte numbers.
    private static func feature(_ value: FtmscapLine.Value, in scanner: JSONLineScanner) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: Hex.maximumFrameLength)
        let count: Int?
        switch value {
        case .text(let text):
            count = try? output.withUnsafeMutableBufferPointer { Hex.parse(scanner.bytes(text.range), into: $0) }.get()
        case .array(let range):
            count = try? output.withUnsafeMutableBufferPointer { FtmscapLine.byteArray(scanner.bytes(range), into: $0) }.get()
        case .bare, .object:
            count = nil
        }
        return count.map { Array(output.prefix($0)) }
    }

    /// An ISO 8601 instant (`2026-11-21T08:00:00Z`, or a bare date) or Unix epoch seconds.
    private static func start(_ value: FtmscapLine.Value, in scanner: JSONLineScanner) -> Duration? {
        switch value {
        case .bare(let range):
            return DecimalSeconds.parse(scanner.bytes(range))
        case .text(let text) where !text.escaped:
            let bytes = scanner.bytes(text.range)
            if let instant = ISO8601.parse(bytes, .zoneOptional) { return instant }
            if bytes.count == 10 {
                let midnight = (Array(bytes) + Array("T00:00:00Z".utf8)).withUnsafeBufferPointer { ISO8601.parse($0, .zoneOptional) }
                if let midnight { return midnight }
            }
            return DecimalSeconds.parse(bytes)
        default:
            return nil
        }
    }
}

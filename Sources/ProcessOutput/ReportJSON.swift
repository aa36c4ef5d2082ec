public import FoundationEssentials

/// Foundation's `JSONEncoder` as every `Codable` report is written: the control answer, the
/// CLI's `--json` lines, the dashboard's frames and the reference backend's answers. Sorted keys
/// keep a report stable byte for byte (tests and diffs read it); slashes stay unescaped, so
/// paths and URLs read as they were written.
///
/// The project's own JSON is `JSON`'s writer; this is for the types a library or a report
/// hands over as `Codable`.
public enum ReportJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// `value` as UTF-8 JSON text.
    public static func string(_ value: some Encodable) throws -> String {
        String(decoding: try encoder().encode(value), as: UTF8.self)
    }
}

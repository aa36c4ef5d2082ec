import Foundation

extension DoctorReport {
    /// `doctor --json`: `{"version", "checks": [{"id", "title", "status", "detail", "data"}],
    /// "summary": {"ok", "warning", "failed", "skipped"}}`, keys sorted so the output of two
    /// runs can be diffed. A check's hint, when it has one, is `data.hint`.
    public var json: String {
        let object: [String: Any] = [
            "version": version,
            "checks": checks.map { check -> [String: Any] in
                var data = check.data
                if let hint = check.hint { data["hint"] = .string(hint) }
                return [
                    "id": check.id, "title": check.title, "status": check.status.rawValue, "detail": check.detail,
                    "data": data.mapValues(Self.foundationValue),
                ]
            },
            "summary": Dictionary(uniqueKeysWithValues: summary.map { ($0.key.rawValue, $0.value) }),
        ]
        // Every value above is a JSON type by construction, so serialisation cannot fail; the
        // fallback only keeps a bug from crashing the operator's tool.
        guard let bytes = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return #"{"error":"the report could not be encoded"}"#
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func foundationValue(_ value: DoctorValue) -> Any {
        switch value {
        case .string(let text): text
        case .int(let number): number
        case .double(let number): number.isFinite ? number : NSNull()
        case .bool(let flag): flag
        case .null: NSNull()
        case .list(let items): items.map(foundationValue)
        case .object(let fields): fields.mapValues(foundationValue)
        }
    }
}

import JSON

extension DoctorReport {
    /// `doctor --json`: `{"checks": [{"data", "detail", "id", "status", "title"}], "summary":
    /// {"failed", "ok", "skipped", "warning"}, "version"}`, keys sorted so the output of two
    /// runs can be diffed. A check's hint, when it has one, is `data.hint`.
    package var json: String {
        let checks: [JSONValue] = checks.map { check in
            var data = check.data
            if let hint = check.hint { data["hint"] = .string(hint) }
            return [
                "data": .object(JSONObject(sortingKeysOf: data)), "detail": .string(check.detail), "id": .string(check.id),
                "status": .string(check.status.rawValue), "title": .string(check.title),
            ]
        }
        let summary = JSONObject(sortingKeysOf: Dictionary(uniqueKeysWithValues: summary.map { ($0.key.rawValue, JSONValue.integer(Int64($0.value))) }))
        return JSONWriter.text(["checks": .array(checks), "summary": .object(summary), "version": .string(version)])
    }
}

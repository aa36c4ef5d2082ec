package import JSON

/// A check's facts name what they could not learn: a missing value is JSON `null`, not an
/// absent key, so every run of `doctor --json` has the same keys.
extension JSONValue {
    package static func optional(_ value: String?) -> JSONValue {
        value.map(JSONValue.string) ?? .null
    }

    package static func optional(_ value: Int?) -> JSONValue {
        value.map { .integer(Int64($0)) } ?? .null
    }
}

/// A field of a backend object read leniently: its absence, its value, or the fact that it is
/// there with the wrong type. Reading this way instead of letting `Decodable` throw keeps one
/// bad field from hiding which training and stage it belongs to.
enum JSONField<Value> {
    case absent
    case value(Value)
    case wrongType

    /// Present means present and not `null`: a backend that writes `"target_power_w": null`
    /// means "no power target".
    var value: Value? {
        if case .value(let value) = self { value } else { nil }
    }

    var isPresent: Bool {
        if case .absent = self { false } else { true }
    }
}

extension KeyedDecodingContainer {
    func field<Value: Decodable>(_ key: Key, as type: Value.Type = Value.self) -> JSONField<Value> {
        guard contains(key), (try? decodeNil(forKey: key)) != true else { return .absent }
        guard let value = try? decode(Value.self, forKey: key) else { return .wrongType }
        return .value(value)
    }
}

internal import JSON

/// The members of one floor message, read with the error that names the member: the one reader
/// of ``GatewayPresence``, ``MachineClaim`` and ``MirroredCheckpoint``.
struct WireObject {
    let object: JSONObject
    let what: String

    init(_ bytes: [UInt8], what: String) throws(FloorWireError) {
        let value: JSONValue
        do {
            value = try JSONReader.read(bytes)
        } catch {
            throw FloorWireError("\(what): not JSON (\(error))")
        }
        guard let object = value.object else { throw FloorWireError("\(what): expected an object, got \(value.kind)") }
        self.object = object
        self.what = what
    }

    private init(object: JSONObject, what: String) {
        self.object = object
        self.what = what
    }

    /// A nested object, read with errors naming it as `what.key`; nil when missing or null.
    func optionalObject(_ key: String) throws(FloorWireError) -> WireObject? {
        guard let value = object[key], value != .null else { return nil }
        guard let members = value.object else { throw FloorWireError("\(what): \(key) is \(value.kind), expected an object") }
        return WireObject(object: members, what: "\(what) \(key)")
    }

    func string(_ key: String) throws(FloorWireError) -> String {
        guard let value = object[key] else { throw FloorWireError("\(what): no \(key)") }
        guard let text = value.string else { throw FloorWireError("\(what): \(key) is \(value.kind), expected a string") }
        return text
    }

    /// A string or null (or missing).
    func optionalString(_ key: String) throws(FloorWireError) -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let text = value.string else { throw FloorWireError("\(what): \(key) is \(value.kind), expected a string or null") }
        return text
    }

    func integer(_ key: String) throws(FloorWireError) -> Int {
        guard let value = object[key] else { throw FloorWireError("\(what): no \(key)") }
        guard let integer = value.integer else { throw FloorWireError("\(what): \(key) is \(value.kind), expected a whole number") }
        return Int(integer)
    }

    func optionalInteger(_ key: String) throws(FloorWireError) -> Int? {
        guard let value = object[key], value != .null else { return nil }
        guard let integer = value.integer else { throw FloorWireError("\(what): \(key) is \(value.kind), expected a whole number or null") }
        return Int(integer)
    }

    func bool(_ key: String) throws(FloorWireError) -> Bool {
        guard let value = object[key] else { throw FloorWireError("\(what): no \(key)") }
        guard let flag = value.bool else { throw FloorWireError("\(what): \(key) is \(value.kind), expected true or false") }
        return flag
    }

    /// A list of strings; missing is empty (a last will carries none).
    func strings(_ key: String) throws(FloorWireError) -> [String] {
        guard let value = object[key], value != .null else { return [] }
        guard let elements = value.array else { throw FloorWireError("\(what): \(key) is \(value.kind), expected a list") }
        var texts: [String] = []
        for element in elements {
            guard let text = element.string else { throw FloorWireError("\(what): \(key) holds \(element.kind), expected strings") }
            texts.append(text)
        }
        return texts
    }

    /// A list of objects, each read with errors naming it as `what.key[i]`; missing is empty.
    func objects(_ key: String) throws(FloorWireError) -> [WireObject] {
        guard let value = object[key], value != .null else { return [] }
        guard let elements = value.array else { throw FloorWireError("\(what): \(key) is \(value.kind), expected a list") }
        var objects: [WireObject] = []
        for (index, element) in elements.enumerated() {
            guard let members = element.object else { throw FloorWireError("\(what): \(key)[\(index)] is \(element.kind), expected an object") }
            objects.append(WireObject(object: members, what: "\(what) \(key)[\(index)]"))
        }
        return objects
    }

    /// An object of strings; missing is empty.
    func texts(_ key: String) throws(FloorWireError) -> [String: String] {
        try members(key, expected: "a string") { $0.string }
    }

    /// An object of whole numbers; missing is empty.
    func integers(_ key: String) throws(FloorWireError) -> [String: Int] {
        try members(key, expected: "a whole number") { $0.integer.map(Int.init) }
    }

    /// An object whose every member `read` reads; missing is empty.
    private func members<Member>(_ key: String, expected: String, _ read: (JSONValue) -> Member?) throws(FloorWireError) -> [String: Member] {
        guard let value = object[key], value != .null else { return [:] }
        guard let members = value.object else { throw FloorWireError("\(what): \(key) is \(value.kind), expected an object") }
        var result: [String: Member] = [:]
        for (name, member) in members.members {
            guard let parsed = read(member) else { throw FloorWireError("\(what): \(key).\(name) is \(member.kind), expected \(expected)") }
            result[name] = parsed
        }
        return result
    }
}

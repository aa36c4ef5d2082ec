import JSON

/// What walks an ``Envelope``'s keys (``Envelope/wire(_:)``): the line's writer
/// (``EnvelopeWriter``) or its reader (``EnvelopeReader``). One method per kind of value the
/// header holds, so both directions meet every key in the same order with the same meaning.
protocol EnvelopeFields: ~Copyable {
    associatedtype Failure: Error
    mutating func type(_ key: StaticString, _ value: inout MessageType) throws(Failure)
    /// A string that is `null` (never left out) when there is none.
    mutating func nullable(_ key: StaticString, _ value: inout String?) throws(Failure)
    mutating func timestamp(_ key: StaticString, _ value: inout UnixMilliseconds) throws(Failure)
    mutating func counter(_ key: StaticString, _ value: inout UInt64) throws(Failure)
    /// The protocol's version: the writer's constant, which a reader checks is one it reads.
    mutating func version(_ key: StaticString, _ written: StaticString) throws(Failure)
    /// The payload object, the line's last key.
    mutating func payload(_ key: StaticString) throws(Failure)
}

/// The writer: the header's keys into the line's buffer, the first after `{`, the object left
/// open after `"payload":`. It cannot fail, and it allocates nothing but the buffer's growth.
struct EnvelopeWriter: EnvelopeFields, ~Copyable {
    typealias Failure = Never

    var json: JSONBuffer

    mutating func type(_ key: StaticString, _ value: inout MessageType) {
        json.append(UInt8(ascii: "{"))
        json.appendKey(key, first: true)
        json.appendString(value.rawValue)
    }

    mutating func nullable(_ key: StaticString, _ value: inout String?) {
        json.appendKey(key)
        if let value { json.appendString(value) } else { json.append("null") }
    }

    mutating func timestamp(_ key: StaticString, _ value: inout UnixMilliseconds) {
        json.appendKey(key)
        value.writeJSON(into: &json)
    }

    mutating func counter(_ key: StaticString, _ value: inout UInt64) {
        json.appendKey(key)
        json.appendInteger(value)
    }

    mutating func version(_ key: StaticString, _ written: StaticString) {
        json.appendKey(key)
        json.appendString(written)
    }

    mutating func payload(_ key: StaticString) {
        json.appendKey(key)
    }
}

/// The reader: each key out of an object the project's JSON reader made; a missing key, a
/// value of another kind or a version this reader does not know is an ``EnvelopeError`` naming
/// the key. Unknown keys are ignored, as contract §7 asks of readers.
struct EnvelopeReader: EnvelopeFields {
    typealias Failure = EnvelopeError

    let object: JSONObject
    /// The `payload` object, once walked.
    private(set) var payload = JSONObject()
    /// The `version` string, once walked.
    private(set) var version = ""

    init(_ object: JSONObject) {
        self.object = object
    }

    mutating func type(_ key: StaticString, _ value: inout MessageType) throws(EnvelopeError) {
        value = MessageType(rawValue: try required(key, "a string") { $0.string })
    }

    mutating func nullable(_ key: StaticString, _ value: inout String?) throws(EnvelopeError) {
        switch object[key.description] {
        case nil, .null?: value = nil
        case .string(let text)?: value = text
        case let other?: throw .field(key.description, problem: "is \(other.kind), not a string or null")
        }
    }

    mutating func timestamp(_ key: StaticString, _ value: inout UnixMilliseconds) throws(EnvelopeError) {
        let seconds = try required(key, "a number") { $0.double }
        guard let time = UnixMilliseconds(seconds: seconds) else {
            throw .field(key.description, problem: "is \(seconds), not a time since 1970 in Unix seconds")
        }
        value = time
    }

    mutating func counter(_ key: StaticString, _ value: inout UInt64) throws(EnvelopeError) {
        value = try required(key, "a whole number from 0") { $0.integer.flatMap(UInt64.init(exactly:)) }
    }

    mutating func version(_ key: StaticString, _ written: StaticString) throws(EnvelopeError) {
        let version = try required(key, "a string") { $0.string }
        // Same major version, any minor: contract §7 adds types and keys without a change, and
        // only a breaking change moves the major.
        let major = written.description.prefix { $0 != "." }
        guard version.prefix(while: { $0 != "." }) == major else {
            throw .field(key.description, problem: "is \"\(version)\", not a \(major).x this reader knows")
        }
        self.version = version
    }

    mutating func payload(_ key: StaticString) throws(EnvelopeError) {
        payload = try required(key, "an object") { $0.object }
    }

    private func required<Value>(_ key: StaticString, _ expected: String, _ read: (JSONValue) -> Value?) throws(EnvelopeError) -> Value {
        guard let value = object[key.description] else { throw .field(key.description, problem: "is missing") }
        guard let decoded = read(value) else { throw .field(key.description, problem: "is \(value.kind), not \(expected)") }
        return decoded
    }
}

public import FTMS
public import JSON

/// One walk over a value's JSON fields, in the order they are written, that either writes
/// them (``JSONBuffer``) or reads them back (``WireReader``): a wire shape described once, by a
/// `wire(_:)` method, rather than by a writer and a reader that must agree key for key.
///
/// The walk passes each field `inout`: the writer only reads it, the reader sets it. A field
/// that may be absent is optional (`String?`, `Int?`, `Double?`): written only when it has a
/// value, read as `nil` when its key is missing or `null`.
public protocol WireFields: ~Copyable {
    associatedtype Failure: Error
    mutating func field(_ key: StaticString, _ value: inout String) throws(Failure)
    mutating func field(_ key: StaticString, _ value: inout String?) throws(Failure)
    mutating func field(_ key: StaticString, _ value: inout Int) throws(Failure)
    mutating func field(_ key: StaticString, _ value: inout Int?) throws(Failure)
    /// A figure kept at a fixed precision (`scale`), printed in its shortest form.
    mutating func field(_ key: StaticString, _ value: inout Double?, scale: Scale) throws(Failure)
    /// A value written as text: `text` gives the text, `parse` the value back (`nil`: not one).
    mutating func field<Value>(
        _ key: StaticString, _ value: inout Value, text: (Value) -> String, parse: (String) -> Value?
    ) throws(Failure)
    /// A nested object: the fields walked until ``endObject()`` are its own.
    mutating func beginObject(_ key: StaticString) throws(Failure)
    mutating func endObject() throws(Failure)
}

extension WireFields where Self: ~Copyable {
    /// An enumeration written as its raw text (`"bike"`, `"counter"`).
    public mutating func field<Value: RawRepresentable<String>>(_ key: StaticString, _ value: inout Value) throws(Failure) {
        try field(key, &value, text: \.rawValue, parse: Value.init(rawValue:))
    }

    /// A time written as ISO 8601 in UTC, whole seconds (`2026-11-21T08:00:00Z`).
    public mutating func field(_ key: StaticString, _ value: inout UTCTime) throws(Failure) {
        try field(key, &value, text: \.iso8601, parse: UTCTime.init(iso8601:))
    }
}

/// The writer: members in the walk's order, absent ones left out. It cannot fail, and it
/// writes into the buffer as it goes, as the hand-written writers of the FTMS frames do.
extension JSONBuffer: WireFields {
    public typealias Failure = Never

    public mutating func field(_ key: StaticString, _ value: inout String) {
        appendMemberKey(key)
        appendString(value)
    }

    public mutating func field(_ key: StaticString, _ value: inout String?) {
        guard var value else { return }
        field(key, &value)
    }

    public mutating func field(_ key: StaticString, _ value: inout Int) {
        appendMemberKey(key)
        appendInteger(value)
    }

    public mutating func field(_ key: StaticString, _ value: inout Int?) {
        guard var value else { return }
        field(key, &value)
    }

    public mutating func field(_ key: StaticString, _ value: inout Double?, scale: Scale) {
        guard let value else { return }
        appendMemberKey(key)
        appendFixedPoint(Rounding.raw(value, scale: scale == .hundredth ? 100 : 10), scale: scale)
    }

    public mutating func field<Value>(_ key: StaticString, _ value: inout Value, text: (Value) -> String, parse: (String) -> Value?) {
        appendMemberKey(key)
        appendString(text(value))
    }

    public mutating func beginObject(_ key: StaticString) {
        appendMemberKey(key)
        append(UInt8(ascii: "{"))
    }

    public mutating func endObject() {
        append(UInt8(ascii: "}"))
    }
}

/// The reader: each field out of an object the project's JSON reader (``JSONReader``) made, a
/// missing required key or a value of another kind an error naming the key.
public struct WireReader: WireFields {
    public typealias Failure = WireError

    var object: JSONObject
    /// The objects walked into, with their keys (for an error's name of a field, `detail.type`).
    var outer: [(key: String, object: JSONObject)] = []

    public init(_ object: JSONObject) {
        self.object = object
    }

    public mutating func field(_ key: StaticString, _ value: inout String) throws(WireError) {
        value = try required(key) { $0.string }
    }

    public mutating func field(_ key: StaticString, _ value: inout String?) throws(WireError) {
        value = try optional(key) { $0.string }
    }

    public mutating func field(_ key: StaticString, _ value: inout Int) throws(WireError) {
        value = try required(key) { $0.integer.map(Int.init) }
    }

    public mutating func field(_ key: StaticString, _ value: inout Int?) throws(WireError) {
        value = try optional(key) { $0.integer.map(Int.init) }
    }

    public mutating func field(_ key: StaticString, _ value: inout Double?, scale: Scale) throws(WireError) {
        value = try optional(key) { $0.double }
    }

    public mutating func field<Value>(
        _ key: StaticString, _ value: inout Value, text: (Value) -> String, parse: (String) -> Value?
    ) throws(WireError) {
        value = try required(key) { $0.string.flatMap(parse) }
    }

    public mutating func beginObject(_ key: StaticString) throws(WireError) {
        let nested = try required(key) { $0.object }
        outer.append((key.description, object))
        object = nested
    }

    public mutating func endObject() {
        if let (_, enclosing) = outer.popLast() { object = enclosing }
    }

    private func required<Value>(_ key: StaticString, _ read: (JSONValue) -> Value?) throws(WireError) -> Value {
        guard let value = try optional(key, read) else { throw WireError(field: name(key), problem: "is missing") }
        return value
    }

    private func optional<Value>(_ key: StaticString, _ read: (JSONValue) -> Value?) throws(WireError) -> Value? {
        guard let value = object[key.description], value != .null else { return nil }
        guard let decoded = read(value) else { throw WireError(field: name(key), problem: "cannot be \(JSONWriter.text(value))") }
        return decoded
    }

    private func name(_ key: StaticString) -> String {
        (outer.map(\.key) + [key.description]).joined(separator: ".")
    }
}

/// A field a ``WireReader`` could not read: `detail.type is missing`, `started_at cannot be "21/11/2026"`.
public struct WireError: Error, Hashable, CustomStringConvertible {
    public var field: String
    public var problem: String

    public init(field: String, problem: String) {
        self.field = field
        self.problem = problem
    }

    public var description: String { "\(field) \(problem)" }
}

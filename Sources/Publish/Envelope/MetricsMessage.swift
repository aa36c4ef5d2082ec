public import JSON

/// One line of the metrics socket (or one MQTT message of docs/mqtt.md), read: its envelope and
/// its payload. What every reader of contract §7 takes in: the dashboard, `watch`, the tests and
/// integrators (through `MetricsClient`).
///
/// Read by walking ``Envelope/wire(_:)``, the walk the daemon writes the line with, so a key the
/// writer renames cannot go on being read under its old name. Unknown keys and types are
/// accepted, as contract §7 asks of readers; anything else that is not an envelope is an
/// ``EnvelopeError``, never a trap.
public struct MetricsMessage: Sendable, Hashable {
    public var envelope: Envelope
    public var payload: JSONObject
    /// The protocol version the line gave: `1.0`, or a later `1.x` (which reads the same).
    public var version: String

    /// Reads one line (without its newline).
    public init(line: some Collection<UInt8>) throws(EnvelopeError) {
        let value: JSONValue
        do {
            value = try JSONReader.read(Array(line))
        } catch {
            throw .notJSON(error.description)
        }
        try self.init(json: value)
    }

    /// Reads an envelope already parsed: a line, or an entry of a `hello`'s `machines` and
    /// `sessions` lists.
    public init(json: JSONValue) throws(EnvelopeError) {
        guard let object = json.object else { throw .notAnObject(json.kind) }
        var envelope = Envelope(type: .other(""), machine: nil, sessionID: nil, timestamp: .epoch, seq: 0)
        var reader = EnvelopeReader(object)
        try envelope.wire(&reader)
        self.envelope = envelope
        payload = reader.payload
        version = reader.version
    }
}

/// Why bytes are not a metrics-socket envelope: one line a reader can log before it skips them.
public enum EnvelopeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not JSON; the reader's reason (`expected a value, found the end at byte 0`).
    case notJSON(String)
    /// JSON, but not an object (`a list`).
    case notAnObject(String)
    /// An object whose key is missing or not what contract §7 says (`seq`, `is missing`).
    case field(String, problem: String)

    public var description: String {
        switch self {
        case .notJSON(let reason): "not a metrics-socket envelope: not JSON (\(reason))"
        case .notAnObject(let kind): "not a metrics-socket envelope: \(kind), not an object"
        case .field(let key, let problem): "not a metrics-socket envelope: \(key) \(problem)"
        }
    }
}

public import JSON

/// One contract §7 envelope (docs/metrics-socket.md), decoded: the unit every source delivers.
public struct FloorMessage: Sendable, Equatable {
    public var type: String
    public var machine: String?
    public var sessionID: String?
    /// When the gateway published it, Unix seconds.
    public var timestamp: Double
    public var seq: UInt64
    public var payload: JSONValue

    public init(type: String, machine: String?, sessionID: String?, timestamp: Double, seq: UInt64, payload: JSONValue) {
        self.type = type
        self.machine = machine
        self.sessionID = sessionID
        self.timestamp = timestamp
        self.seq = seq
        self.payload = payload
    }

    /// Reads an envelope from its decoded JSON; nil if it is not one (no `type`, or no object
    /// payload). Unknown keys are ignored, as the protocol asks of readers.
    public init?(json: JSONValue) {
        guard case .object = json, let type = json["type"]?.string else { return nil }
        self.type = type
        machine = json["machine"]?.string
        sessionID = json["sessionId"]?.string
        timestamp = json["timestamp"]?.double ?? 0
        self.seq = json["seq"]?.integer.flatMap { UInt64(exactly: $0) } ?? 0
        guard let payload = json["payload"], case .object = payload else { return nil }
        self.payload = payload
    }

    /// Parses one line of the metrics socket (or one MQTT payload).
    public init(line: some Sequence<UInt8>) throws(FloorMessageError) {
        let json: JSONValue
        do {
            json = try JSONReader.read(Array(line))
        } catch {
            throw .notJSON
        }
        guard let message = FloorMessage(json: json) else { throw .notAnEnvelope }
        self = message
    }
}

/// Why a line was not an envelope; the source logs it in one line and skips the line.
public enum FloorMessageError: Error, Equatable, CustomStringConvertible {
    case notJSON
    case notAnEnvelope

    public var description: String {
        switch self {
        case .notJSON: "a line that is not JSON"
        case .notAnEnvelope: "a JSON line that is not a metrics-socket envelope (no type or no payload object)"
        }
    }
}

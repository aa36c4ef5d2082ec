import JSON
import FTMS

/// The contract §7 envelope's header: everything of a line except its payload.
///
/// Keys are written in one fixed order (`type`, `machine`, `sessionId`, `timestamp`, `seq`,
/// `version`, `payload`) so that a line's bytes are a function of its contents, which the tests
/// pin and a `grep` can rely on. `machine` and `sessionId` are `null` when the message is not
/// about one: readers of contract §7 expect the keys to be there.
///
/// The keys live in one place, ``wire(_:)``: ``writeHeader(into:)`` walks it with the line's
/// buffer, and ``MetricsMessage`` walks it with the project's one JSON reader, so the daemon's
/// writer and every reader (the dashboard, `watch`, the tests, an integrator's program) cannot
/// disagree about a key, as `Workout.SessionSummary.wire(_:)` keeps the summary's.
public struct Envelope: Sendable, Hashable {
    static let version: StaticString = "1.0"

    public var type: MessageType
    public var machine: String?
    public var sessionID: String?
    public var timestamp: UnixMilliseconds
    public var seq: UInt64

    public init(type: MessageType, machine: String?, sessionID: String?, timestamp: UnixMilliseconds, seq: UInt64) {
        self.type = type
        self.machine = machine
        self.sessionID = sessionID
        self.timestamp = timestamp
        self.seq = seq
    }

    /// The one walk of the line's keys, in their written order; `payload` last, left to the
    /// walker (the writer leaves the object open for it, the reader takes it whole).
    mutating func wire<Fields: EnvelopeFields & ~Copyable>(_ fields: inout Fields) throws(Fields.Failure) {
        try fields.type("type", &type)
        try fields.nullable("machine", &machine)
        try fields.nullable("sessionId", &sessionID)
        try fields.timestamp("timestamp", &timestamp)
        try fields.counter("seq", &seq)
        try fields.version("version", Self.version)
        try fields.payload("payload")
    }

    /// Writes `{"type":…,…,"payload":` and leaves the object open for the payload and `}`.
    func writeHeader(into json: inout JSONBuffer) {
        var header = self
        var writer = EnvelopeWriter(json: json)
        header.wire(&writer)
        json = writer.json
    }
}

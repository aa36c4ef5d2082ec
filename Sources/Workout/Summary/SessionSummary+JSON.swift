public import JSON
import FTMS

/// The summary as uploaded and as `replay --json` prints it (contract §5), and as the store reads
/// it back: keys in a fixed order (SolidFocus's, then `raw`), integers for totals and times,
/// averages at fixed precision in their shortest form (`152.3`, `150`, `25.35`), absent figures
/// left out.
///
/// The wire shape lives in one place, ``wire(_:)``: ``writeJSON(into:)`` walks it with the JSON
/// writer every other payload uses (no allocation but the times' text, the same number format as
/// the decoded frames), and ``init(json:)`` walks it with the project's one JSON reader. A
/// `Codable` conformance beside the writer wrote the same keys a second time, and a key added to
/// one and not the other (`clock` was) passed until a stored session failed to read back.
extension SessionSummary {
    mutating func wire<Fields: WireFields & ~Copyable>(_ fields: inout Fields) throws(Fields.Failure) {
        try fields.field("session_id", &sessionID)
        try fields.field("started_at", &startedAt)
        try fields.field("ended_at", &endedAt)
        try fields.field("duration", &duration)
        try fields.field("total_energy", &totalEnergy)
        try fields.field("total_distance", &totalDistance)
        try fields.beginObject("detail")
        try detail.wire(&fields)
        try fields.endObject()
        try fields.field("raw", &raw)
    }

    public func writeJSON(into json: inout JSONBuffer) {
        var summary = self
        json.append(UInt8(ascii: "{"))
        summary.wire(&json)
        json.append(UInt8(ascii: "}"))
    }

    /// ``writeJSON(into:)`` as a string: one line, no trailing newline.
    public var jsonString: String {
        var json = JSONBuffer(capacity: 768)
        writeJSON(into: &json)
        return json.string
    }

    /// A summary read back from its JSON object: equal to the summary that wrote it, since
    /// every figure was rounded to its printed precision when the summary was made.
    public init(json object: JSONObject) throws(WireError) {
        self = .blank
        var reader = WireReader(object)
        try wire(&reader)
    }

    /// A summary read back from its JSON text; a syntax error is ``JSONSyntaxError``.
    public init(json text: String) throws {
        guard let object = try JSONReader.read(text).object else { throw WireError(field: "summary", problem: "is not an object") }
        try self.init(json: object)
    }

    /// What a reader starts from; every field it leaves so is a required key it found missing.
    private static let blank = SessionSummary(
        sessionID: "", startedAt: UTCTime(millisecondsSince1970: 0), endedAt: UTCTime(millisecondsSince1970: 0), duration: 0,
        totalEnergy: 0, totalDistance: 0,
        detail: SessionDetail(
            machine: MachineIdentity(name: "", address: "", type: .bike), elapsed: 0, paused: 0, energyMethod: .counter,
            distanceMethod: .counter, sampleCount: 0, endReason: .stopped))
}

extension SessionDetail {
    /// `detail.clock` of a session dated by an unsynchronised wall clock; left out otherwise.
    static let unsynchronised = "unsynchronised"

    mutating func wire<Fields: WireFields & ~Copyable>(_ fields: inout Fields) throws(Fields.Failure) {
        try fields.field("name", &machine.name)
        try fields.field("address", &machine.address)
        try fields.field("model", &machine.model)
        try fields.field("type", &machine.type)
        try fields.field("elapsed", &elapsed)
        try fields.field("paused", &paused)
        try fields.field("avg_power", &averagePower, scale: .tenth)
        try fields.field("max_power", &maximumPower)
        try fields.field("avg_cadence", &averageCadence, scale: .tenth)
        try fields.field("avg_speed", &averageSpeed, scale: .hundredth)
        try fields.field("avg_hr", &averageHeartRate, scale: .tenth)
        try fields.field("max_hr", &maximumHeartRate)
        try fields.field("avg_stroke_rate", &averageStrokeRate, scale: .tenth)
        try fields.field("stroke_count", &strokeCount)
        try fields.field("avg_pace", &averagePace, scale: .tenth)
        try fields.field("energy_method", &energyMethod)
        try fields.field("distance_method", &distanceMethod)
        try fields.field("sample_count", &sampleCount)
        try fields.field("end_reason", &endReason)
        var clock = clockUnsynchronised ? Self.unsynchronised : nil
        try fields.field("clock", &clock)
        clockUnsynchronised = clock == Self.unsynchronised
    }
}

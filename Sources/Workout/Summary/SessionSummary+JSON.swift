public import JSON
import FTMS

extension SessionSummary {
    /// The summary as uploaded and as `replay --json` prints it: keys in a fixed order
    /// (SolidFocus's, then `raw`), integers for totals and times, averages at fixed precision in
    /// their shortest form (`152.3`, `150`, `25.35`), absent figures left out. Written with the
    /// FTMS module's ``JSONBuffer`` so the decoded frames and the summaries share one number
    /// format.
    public func writeJSON(into json: inout JSONBuffer) {
        json.append(UInt8(ascii: "{"))
        json.appendKey("session_id", first: true)
        json.appendString(sessionID)
        json.appendKey("started_at")
        json.appendString(startedAt.iso8601)
        json.appendKey("ended_at")
        json.appendString(endedAt.iso8601)
        json.appendKey("duration")
        json.appendInteger(duration)
        json.appendKey("total_energy")
        json.appendInteger(totalEnergy)
        json.appendKey("total_distance")
        json.appendInteger(totalDistance)
        json.appendKey("detail")
        detail.writeJSON(into: &json)
        if let raw {
            json.appendKey("raw")
            json.appendString(raw)
        }
        json.append(UInt8(ascii: "}"))
    }

    /// ``writeJSON(into:)`` as a string: one line, no trailing newline.
    public var jsonString: String {
        var json = JSONBuffer(capacity: 768)
        writeJSON(into: &json)
        return json.string
    }
}

extension SessionDetail {
    public func writeJSON(into json: inout JSONBuffer) {
        json.append(UInt8(ascii: "{"))
        json.appendKey("name", first: true)
        json.appendString(machine.name)
        json.appendKey("address")
        json.appendString(machine.address)
        if let model = machine.model {
            json.appendKey("model")
            json.appendString(model)
        }
        json.appendKey("type")
        json.appendString(machine.type.rawValue)
        json.appendKey("elapsed")
        json.appendInteger(elapsed)
        json.appendKey("paused")
        json.appendInteger(paused)
        Self.append("avg_power", averagePower, scale: .tenth, to: &json)
        Self.append("max_power", maximumPower, to: &json)
        Self.append("avg_cadence", averageCadence, scale: .tenth, to: &json)
        Self.append("avg_speed", averageSpeed, scale: .hundredth, to: &json)
        Self.append("avg_hr", averageHeartRate, scale: .tenth, to: &json)
        Self.append("max_hr", maximumHeartRate, to: &json)
        Self.append("avg_stroke_rate", averageStrokeRate, scale: .tenth, to: &json)
        Self.append("stroke_count", strokeCount, to: &json)
        Self.append("avg_pace", averagePace, scale: .tenth, to: &json)
        json.appendKey("energy_method")
        json.appendString(energyMethod.rawValue)
        json.appendKey("distance_method")
        json.appendString(distanceMethod.rawValue)
        json.appendKey("sample_count")
        json.appendInteger(sampleCount)
        json.appendKey("end_reason")
        json.appendString(endReason.rawValue)
        if clockUnsynchronised {
            json.appendKey("clock")
            json.appendString(Self.unsynchronised)
        }
        json.append(UInt8(ascii: "}"))
    }

    private static func append(_ key: StaticString, _ value: Double?, scale: Scale, to json: inout JSONBuffer) {
        guard let value else { return }
        json.appendKey(key)
        json.appendFixedPoint(Rounding.raw(value, scale: scale == .hundredth ? 100 : 10), scale: scale)
    }

    private static func append(_ key: StaticString, _ value: Int?, to json: inout JSONBuffer) {
        guard let value else { return }
        json.appendKey(key)
        json.appendInteger(value)
    }
}

package import FTMS
package import JSON
package import Workout

/// The payloads of contract §7's messages, built from what the pipeline produces. Shared by the
/// daemon and `replay --publish`, so an integrator developing against a replayed capture sees
/// exactly what a live gym will send.
///
/// The messages ``LivePublisher`` sends many of (`machine`, `sample`, `status`,
/// `session_state`) are writers (`write…(into:)`), which write the payload straight into the
/// socket's line: a notification's JSON is written once. The functions returning a
/// ``JSONPayload`` are those writers into a buffer of their own, for one-off messages and tests.
package enum MetricsPayloads {
    /// `machine`: `state` is `discovered`, `connecting`, `ready` or `disconnected`; `notify`
    /// (with `ready`) says how data notifications arrive: `acquired` or `start_notify`; with
    /// several adapters, `adapter` and `adapter_reason` say where its link goes and why (or
    /// why it waits). Once the machine is ready, its Fitness Machine Feature value is listed by
    /// the names `decode` uses, so a display knows what to show (a rower without heart rate, a
    /// bike that takes a power target) before the first sample.
    package static func machine(
        _ machine: MachineIdentity, state: StaticString, manufacturer: String? = nil, notify: String? = nil, reason: String? = nil,
        adapter: String? = nil, adapterReason: String? = nil, features: FitnessMachineFeature? = nil
    ) -> JSONPayload {
        written(state: "\(state)") { json in
            writeMachine(
                machine, state: state, manufacturer: manufacturer, notify: notify, reason: reason, adapter: adapter,
                adapterReason: adapterReason, features: features, into: &json)
        }
    }

    package static func writeMachine(
        _ machine: MachineIdentity, state: StaticString, manufacturer: String?, notify: String?, reason: String?,
        adapter: String?, adapterReason: String?, features: FitnessMachineFeature?, into json: inout JSONBuffer
    ) {
        object(&json) { json in
            json.appendKey("state", first: true)
            json.appendString(state)
            json.appendKey("name")
            json.appendString(machine.name)
            json.appendKey("address")
            json.appendString(machine.address)
            appendIfPresent("manufacturer", manufacturer, into: &json)
            appendIfPresent("model", machine.model, into: &json)
            json.appendKey("type")
            json.appendString(machine.type.rawValue)
            appendIfPresent("notify", notify, into: &json)
            appendIfPresent("reason", reason, into: &json)
            appendIfPresent("adapter", adapter, into: &json)
            appendIfPresent("adapter_reason", adapterReason, into: &json)
            // Only the words the machine sent, as `decode` reports a short value.
            if let features, features.wordCount >= 1 {
                appendNames("fitness_machine_features", features.fitnessMachineFeatureList, into: &json)
            }
            if let features, features.wordCount >= 2 {
                appendNames("target_setting_features", features.targetSettingFeatureList, into: &json)
            }
        }
    }

    /// An optional field is left out, not written `null`: contract §7's payloads omit what they lack.
    private static func appendIfPresent(_ key: StaticString, _ value: String?, into json: inout JSONBuffer) {
        guard let value else { return }
        json.appendKey(key)
        json.appendString(value)
    }

    private static func appendNames(_ key: StaticString, _ names: [String], into json: inout JSONBuffer) {
        json.appendKey(key)
        json.append(UInt8(ascii: "["))
        for (index, name) in names.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            json.appendString(name)
        }
        json.append(UInt8(ascii: "]"))
    }

    /// `session_state`: `started`, `paused`, `resumed` or `finished`, with `startEpoch` and
    /// `elapsedMs` (contract §7's names); a pause says why, a dropped session says why too.
    /// `distanceM` and `energyKcal` are the session's own totals so far (what the floor shows
    /// is the ride, not the machine's lifetime counters, which stay in `sample`). `splitFrom`:
    /// the session a session continues in part, on every state of it (issue 37: another
    /// gateway's ride this one could not carry on); absent for a session that did not split.
    package static func sessionState(_ event: SessionEvent) -> JSONPayload {
        written(state: "\(event.state)") { writeSessionState(event, into: &$0) }
    }

    package static func writeSessionState(_ event: SessionEvent, into json: inout JSONBuffer) {
        object(&json) { json in
            json.appendKey("state", first: true)
            json.appendString(event.state)
            json.appendKey("startEpoch")
            json.appendInteger(Int(event.progress.startEpoch))
            json.appendKey("elapsedMs")
            json.appendInteger(Int(event.progress.elapsedMilliseconds))
            json.appendKey("movingMs")
            json.appendInteger(Int(event.progress.movingMilliseconds))
            if let distance = event.progress.distance {
                json.appendKey("distanceM")
                json.appendInteger(distance)
            }
            if let energy = event.progress.energy {
                json.appendKey("energyKcal")
                json.appendInteger(energy)
            }
            if let splitFrom = event.progress.splitFrom {
                json.appendKey("splitFrom")
                json.appendString(splitFrom)
            }
            switch event {
            case .paused(_, let reason):
                json.appendKey("reason")
                json.appendString(reason.rawValue)
            case .dropped(_, let reason, _):
                json.appendKey("dropped")
                json.appendString(reason.rawValue)
            default:
                break
            }
        }
    }

    /// `sample` and `status`: the decoded record or event, in contract §3.1's names.
    package static func decoded(_ message: FTMSMessage) -> JSONPayload {
        written { message.writeJSON(into: &$0) }
    }

    /// `sample`: the decoded record (the machine's own counters, `total_distance_m` and the
    /// like, as they are) and, while a session is open, that session's totals so far:
    /// `session_distance_m`, `session_energy_kcal`, `session_elapsed_ms`, `session_moving_ms`,
    /// so a display shows the ride live between `session_state` changes.
    package static func sample(_ record: DataRecord, session: SessionProgress?) -> JSONPayload {
        written { writeSample(record, session: session, into: &$0) }
    }

    package static func writeSample(_ record: DataRecord, session: SessionProgress?, into json: inout JSONBuffer) {
        FTMSMessage.data(record).writeJSON(into: &json)
        guard let session else { return }
        // The decoded object, reopened for the session's fields.
        json.reopenObject()
        if let distance = session.distance {
            json.appendKey("session_distance_m")
            json.appendInteger(distance)
        }
        if let energy = session.energy {
            json.appendKey("session_energy_kcal")
            json.appendInteger(energy)
        }
        json.appendKey("session_elapsed_ms")
        json.appendInteger(Int(session.elapsedMilliseconds))
        json.appendKey("session_moving_ms")
        json.appendInteger(Int(session.movingMilliseconds))
        json.append(UInt8(ascii: "}"))
    }

    /// `session_summary`: the summary exactly as uploaded.
    package static func summary(_ summary: SessionSummary) -> JSONPayload {
        written { summary.writeJSON(into: &$0) }
    }

    /// `control`: a Control Point procedure's request and the machine's answer (contract §4), with
    /// who asked: `operator` (control socket) or `training` (a training program).
    package static func control(operation: String, request: [UInt8], result: String, succeeded: Bool, origin: StaticString, detail: String? = nil) -> JSONPayload {
        written { json in object(&json) { json in
            json.appendKey("operation", first: true)
            json.appendString(operation)
            json.appendKey("request")
            json.appendString(Hex.string(request))
            json.appendKey("result")
            json.appendString(result)
            json.appendKey("succeeded")
            json.append(succeeded ? "true" : "false" as StaticString)
            json.appendKey("origin")
            json.appendString(origin)
            appendIfPresent("detail", detail, into: &json)
        } }
    }

    /// `upload`: the queue by state after an upload run, and what the run came to.
    package static func upload(pending: Int, uploaded: Int, dead: Int, result: String) -> JSONPayload {
        written { json in object(&json) { json in
            json.appendKey("pending", first: true)
            json.appendInteger(pending)
            json.appendKey("uploaded")
            json.appendInteger(uploaded)
            json.appendKey("dead")
            json.appendInteger(dead)
            json.appendKey("result")
            json.appendString(result)
        } }
    }

    /// An object whose members `members` writes.
    private static func object(_ json: inout JSONBuffer, _ members: (inout JSONBuffer) -> Void) {
        json.append(UInt8(ascii: "{"))
        members(&json)
        json.append(UInt8(ascii: "}"))
    }

    /// What `write` writes, as a payload of its own.
    private static func written(state: String? = nil, _ write: (inout JSONBuffer) -> Void) -> JSONPayload {
        var json = JSONBuffer(capacity: 512)
        write(&json)
        return JSONPayload(written: json, state: state)
    }
}

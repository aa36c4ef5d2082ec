import Publish

/// Envelopes as the daemon writes them (docs/metrics-socket.md), parsed by Publish's one
/// reader so a test exercises the same path as a live line.
enum Envelopes {
    static func line(_ type: String, machine: String?, session: String? = nil, at time: Double, seq: UInt64, payload: String) -> String {
        let machineJSON = machine.map { "\"\($0)\"" } ?? "null"
        let sessionJSON = session.map { "\"\($0)\"" } ?? "null"
        return #"{"type":"\#(type)","machine":\#(machineJSON),"sessionId":\#(sessionJSON),"timestamp":\#(time),"seq":\#(seq),"version":"1.0","payload":\#(payload)}"#
    }

    static func message(_ type: String, machine: String?, session: String? = nil, at time: Double, seq: UInt64, payload: String) throws -> MetricsMessage {
        try MetricsMessage(line: Array(line(type, machine: machine, session: session, at: time, seq: seq, payload: payload).utf8))
    }

    static func bikeSample(power: Int, cadence: Int = 85, heartRate: Int? = 140, distance: Int = 1200) -> String {
        let hr = heartRate.map(String.init) ?? "null"
        return #"{"characteristic":"indoor_bike_data","uuid":"2ad2","flags":580,"more_data":false,"instantaneous_speed_kmh":31.4,"instantaneous_cadence_rpm":\#(cadence),"instantaneous_power_w":\#(power),"total_distance_m":\#(distance),"total_energy_kcal":55,"heart_rate_bpm":\#(hr)}"#
    }

    static let rowerSample = #"{"characteristic":"rower_data","uuid":"2ad1","flags":0,"more_data":false,"stroke_rate_spm":26,"stroke_count":310,"total_distance_m":2050,"instantaneous_pace_s_per_500m":118,"instantaneous_power_w":190,"total_energy_kcal":80}"#

    static func machine(_ name: String, state: String, type: String = "bike") -> String {
        #"{"state":"\#(state)","name":"\#(name)","address":"C0:5F:00:00:00:01","model":"SF-\#(type == "bike" ? "Bike" : "Rower") v2","type":"\#(type)"}"#
    }
}

import DeterministicRandom
import FTMS
import Foundation
import JSON
import Testing
import Workout

/// The summary JSON that is uploaded and printed by `replay --json`, byte for byte.
@Suite("Summary JSON")
struct SummaryJSONTests {
    static let summary = SessionSummary(
        sessionID: "0b0e5f1c-8a4e-4c5e-9f3a-1d2c3b4a5e6f",
        startedAt: UTCTime(secondsSince1970: 1_795_248_000),
        endedAt: UTCTime(secondsSince1970: 1_795_248_000 + 1812),
        duration: 1752,
        totalEnergy: 312,
        totalDistance: 14_210,
        detail: SessionDetail(
            machine: MachineIdentity(name: "SF-Bike-0001", address: "C0:11:22:33:44:01", model: "SF-Bike-M1", type: .bike),
            elapsed: 1812, paused: 60, averagePower: 152.3, maximumPower: 412, averageCadence: 84,
            averageSpeed: 29.15, averageHeartRate: 131.5, maximumHeartRate: 171, energyMethod: .counter,
            distanceMethod: .integrated, sampleCount: 1790, endReason: .stopped
        )
    )

    @Test func exactBytes() {
        #expect(Self.summary.jsonString == #"{"session_id":"0b0e5f1c-8a4e-4c5e-9f3a-1d2c3b4a5e6f","started_at":"2026-11-21T08:00:00Z","ended_at":"2026-11-21T08:30:12Z","duration":1752,"total_energy":312,"total_distance":14210,"detail":{"name":"SF-Bike-0001","address":"C0:11:22:33:44:01","model":"SF-Bike-M1","type":"bike","elapsed":1812,"paused":60,"avg_power":152.3,"max_power":412,"avg_cadence":84,"avg_speed":29.15,"avg_hr":131.5,"max_hr":171,"energy_method":"counter","distance_method":"integrated","sample_count":1790,"end_reason":"stopped"}}"#)
    }

    /// A rower with stroke figures, no model yet, a name that needs escaping, and `raw`.
    @Test func rowerWithRaw() {
        var summary = Self.summary
        summary.detail.machine = MachineIdentity(name: "SF-Rower-\"7\"", address: "C0:11:22:33:44:02", type: .rower)
        summary.detail.averageCadence = nil
        summary.detail.averageSpeed = 12.6
        summary.detail.averageHeartRate = nil
        summary.detail.maximumHeartRate = nil
        summary.detail.averageStrokeRate = 24.5
        summary.detail.strokeCount = 715
        summary.detail.averagePace = 142.9
        summary.raw = "AAEC"
        #expect(summary.jsonString == #"{"session_id":"0b0e5f1c-8a4e-4c5e-9f3a-1d2c3b4a5e6f","started_at":"2026-11-21T08:00:00Z","ended_at":"2026-11-21T08:30:12Z","duration":1752,"total_energy":312,"total_distance":14210,"detail":{"name":"SF-Rower-\"7\"","address":"C0:11:22:33:44:02","type":"rower","elapsed":1812,"paused":60,"avg_power":152.3,"max_power":412,"avg_speed":12.6,"avg_stroke_rate":24.5,"stroke_count":715,"avg_pace":142.9,"energy_method":"counter","distance_method":"integrated","sample_count":1790,"end_reason":"stopped"},"raw":"AAEC"}"#)
        #expect(summary.jsonString.utf8.count == summary.jsonString.count)
    }

    /// The engine's own summary of the steady ride, end to end.
    @Test func fromTheEngine() throws {
        var ride = Ride()
        for second in 0...120 {
            ride.sample(Double(second), [.instantaneousCadence: 90.5, .instantaneousPower: 201, .instantaneousSpeed: 31.27, .heartRate: 140, .totalDistance: 8.7 * Double(second)])
        }
        ride.close(121)
        let summary = try #require(ride.finished.first)
        // The id is SplitMix64(seed: 1)'s first two outputs, 0x910a2dec89025cc1 and
        // 0xbeeb8da1658eec67 (the reference sequence), with the version nibble set to 4 and
        // the variant bits to 10. 121 s of movement; 201 W · 121 s / 1046 = 23.3 kcal.
        #expect(summary.jsonString == #"{"session_id":"910a2dec-8902-4cc1-beeb-8da1658eec67","started_at":"2026-11-21T08:00:00Z","ended_at":"2026-11-21T08:02:01Z","duration":121,"total_energy":23,"total_distance":1044,"detail":{"name":"SF-Bike-0001","address":"C0:11:22:33:44:01","model":"SF-Bike-M1","type":"bike","elapsed":121,"paused":0,"avg_power":201,"max_power":201,"avg_cadence":90.5,"avg_speed":31.27,"avg_hr":140,"max_hr":140,"energy_method":"integrated","distance_method":"counter","sample_count":121,"end_reason":"end_of_capture"}}"#)
    }

    /// The reader walks the writer's own fields: every field, the optional ones present and
    /// absent, reads back equal.
    @Test func readsBackToTheSameSummary() throws {
        #expect(try SessionSummary(json: Self.summary.jsonString) == Self.summary)
        var every = Self.summary
        every.detail.machine.model = nil
        every.detail.averageStrokeRate = 24.5
        every.detail.strokeCount = 715
        every.detail.averagePace = 142.9
        every.detail.clockUnsynchronised = true
        every.raw = "AAEC"
        #expect(try SessionSummary(json: every.jsonString) == every)
        var none = every
        none.detail = SessionDetail(
            machine: every.detail.machine, elapsed: 1812, paused: 60, energyMethod: .integrated, distanceMethod: .counter, sampleCount: 0,
            endReason: .disconnected)
        none.raw = nil
        #expect(try SessionSummary(json: none.jsonString) == none)
    }

    /// A field that is missing or of another form is named, nested ones by their path.
    @Test func aFieldThatDoesNotReadIsNamed() {
        let json = Self.summary.jsonString
        #expect(throws: WireError(field: "started_at", problem: #"cannot be "21/11/2026""#)) {
            try SessionSummary(json: json.replacingOccurrences(of: "2026-11-21T08:00:00Z", with: "21/11/2026"))
        }
        #expect(throws: WireError(field: "detail.type", problem: #"cannot be "tricycle""#)) {
            try SessionSummary(json: json.replacingOccurrences(of: #""type":"bike""#, with: #""type":"tricycle""#))
        }
        #expect(throws: WireError(field: "detail.sample_count", problem: "is missing")) {
            try SessionSummary(json: json.replacingOccurrences(of: #","sample_count":1790"#, with: ""))
        }
        #expect(throws: WireError(field: "detail.avg_power", problem: #"cannot be "fast""#)) {
            try SessionSummary(json: json.replacingOccurrences(of: #""avg_power":152.3"#, with: #""avg_power":"fast""#))
        }
        #expect(throws: JSONSyntaxError.self) { try SessionSummary(json: String(json.dropLast())) }
    }
}

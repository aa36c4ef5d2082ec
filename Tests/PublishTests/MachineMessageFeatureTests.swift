import Publish
import FTMS
import Testing
import Workout

/// contract §7: the `machine` message carries the machine's features once it is ready, by the
/// names `decode` prints, so a display (and the MQTT state topic, the same bytes) knows what a
/// machine measures and takes before its first sample.
@Suite("Publish: machine message features")
struct MachineMessageFeatureTests {
    static let bike = MachineIdentity(name: "SF-Bike-0001", address: "C0:5F:00:00:00:01", model: "SF-Bike-M1", type: .bike)

    /// Cadence (bit 1), heart rate (bit 10) and power (bit 14); resistance (bit 2) and power
    /// (bit 3) targets, plus a reserved target bit (31) that has no name and is left out.
    @Test func readyListsWhatTheMachineSaid() {
        let bytes: [UInt8] = [0x02, 0x44, 0x00, 0x00, 0x0C, 0x00, 0x00, 0x80]
        let features = bytes.withUnsafeBytes { FitnessMachineFeature(decoding: $0) }
        let payload = MetricsPayloads.machine(Self.bike, state: "ready", manufacturer: "SolidFocus", features: features)
        #expect(String(decoding: payload.bytes, as: UTF8.self) == #"{"state":"ready","name":"SF-Bike-0001","address":"C0:5F:00:00:00:01","manufacturer":"SolidFocus","model":"SF-Bike-M1","type":"bike","fitness_machine_features":["cadence","heart_rate_measurement","power_measurement"],"target_setting_features":["resistance_target","power_target"]}"#)
    }

    /// A 4-byte value holds only the first word: the second list is absent, not empty.
    @Test func aShortValueListsOnlyTheWordItHeld() {
        let bytes: [UInt8] = [0x02, 0x00, 0x00, 0x00]
        let features = bytes.withUnsafeBytes { FitnessMachineFeature(decoding: $0) }
        let text = String(decoding: MetricsPayloads.machine(Self.bike, state: "ready", features: features).bytes, as: UTF8.self)
        #expect(text.hasSuffix(#""type":"bike","fitness_machine_features":["cadence"]}"#))
        #expect(!text.contains("target_setting_features"))
    }

    @Test func noFeaturesBeforeReady() {
        let text = String(decoding: MetricsPayloads.machine(Self.bike, state: "connecting").bytes, as: UTF8.self)
        #expect(!text.contains("features"))
    }
}

import FTMS
import Testing

/// Known answers written by hand from the FTMS 1.0 field tables (contract §3), asserted as exact
/// JSON text: widths, signedness, resolution, field order, sentinels and number formatting
/// all at once.
@Suite("Golden vectors from the FTMS 1.0 tables")
struct GoldenVectorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let characteristic: Characteristic
        let hex: String
        let json: String
        var testDescription: String { "\(characteristic.shortUUID) [\(hex)]" }
    }

    static let head2AD2 = #"{"characteristic":"indoor_bike_data","uuid":"2ad2""#
    static let head2AD1 = #"{"characteristic":"rower_data","uuid":"2ad1""#
    static let head2AD9 = #"{"characteristic":"fitness_machine_control_point","uuid":"2ad9""#
    static let head2ADA = #"{"characteristic":"fitness_machine_status","uuid":"2ada""#

    static let dataRecords: [Case] = [
        // Every Indoor Bike Data field: sint16 extremes, uint24 distance, energy sentinels,
        // and implausible values that are still values (255 bpm, 32767 W).
        Case(characteristic: .indoorBikeData,
             hex: "fe 1f 39 30 64 00 b5 00 02 00 56 34 12 f6 ff 38 ff ff 7f ff ff 02 01 ff ff 7b ff ff 01 00",
             json: head2AD2 + #","flags":8190,"more_data":false,"instantaneous_speed_kmh":123.45,"average_speed_kmh":1,"instantaneous_cadence_rpm":90.5,"average_cadence_rpm":1,"total_distance_m":1193046,"resistance_level":-10,"instantaneous_power_w":-200,"average_power_w":32767,"total_energy_kcal":null,"energy_per_hour_kcal":258,"energy_per_minute_kcal":null,"heart_rate_bpm":255,"metabolic_equivalent":12.3,"elapsed_time_s":65535,"remaining_time_s":1,"implausible":["instantaneous_speed_kmh","average_power_w","heart_rate_bpm"]}"#),
        // Every Rower Data field.
        Case(characteristic: .rowerData,
             hex: "fe 1f 51 cd ab 30 ff ff ff 78 00 82 00 ff ff 00 01 00 80 10 00 ff ff 05 00 00 10 0e ff ff",
             json: head2AD1 + #","flags":8190,"more_data":false,"stroke_rate_spm":40.5,"stroke_count":43981,"average_stroke_rate_spm":24,"total_distance_m":16777215,"instantaneous_pace_s_per_500m":120,"average_pace_s_per_500m":130,"instantaneous_power_w":-1,"average_power_w":256,"resistance_level":-32768,"total_energy_kcal":16,"energy_per_hour_kcal":null,"energy_per_minute_kcal":5,"heart_rate_bpm":0,"metabolic_equivalent":0,"elapsed_time_s":3600,"remaining_time_s":65535}"#),
        // More Data with nothing else: bit 0 set means speed is absent.
        Case(characteristic: .indoorBikeData, hex: "01 00", json: head2AD2 + #","flags":1,"more_data":true}"#),
        // Flags 0x0000 is not "invalid": it is speed alone (the Stages SB20 sends it).
        Case(characteristic: .indoorBikeData, hex: "00 00 10 27", json: head2AD2 + #","flags":0,"more_data":false,"instantaneous_speed_kmh":100}"#),
        // Rower bit 0 clear: stroke rate and stroke count, both.
        Case(characteristic: .rowerData, hex: "00 00 3d 07 00", json: head2AD1 + #","flags":0,"more_data":false,"stroke_rate_spm":30.5,"stroke_count":7}"#),
        // Energy sentinels one at a time.
        Case(characteristic: .rowerData, hex: "01 01 ff ff 10 00 ff",
             json: head2AD1 + #","flags":257,"more_data":true,"total_energy_kcal":null,"energy_per_hour_kcal":16,"energy_per_minute_kcal":null}"#),
        // A record cut short inside a field keeps the complete ones.
        Case(characteristic: .indoorBikeData, hex: "44 02 da 02 02",
             json: head2AD2 + #","flags":580,"more_data":false,"instantaneous_speed_kmh":7.3,"truncated":true}"#),
        // Cut inside the three-byte distance.
        Case(characteristic: .rowerData, hex: "04 00 05 01 00 10 27",
             json: head2AD1 + #","flags":4,"more_data":false,"stroke_rate_spm":2.5,"stroke_count":1,"truncated":true}"#),
        // Too short to hold its flags.
        Case(characteristic: .indoorBikeData, hex: "44", json: head2AD2 + #","truncated":true}"#),
        Case(characteristic: .rowerData, hex: "", json: head2AD1 + #","truncated":true}"#),
        // Bytes after the last field are counted, never silently dropped.
        Case(characteristic: .indoorBikeData, hex: "00 08 e6 08 1f 00 aa bb",
             json: head2AD2 + #","flags":2048,"more_data":false,"instantaneous_speed_kmh":22.78,"elapsed_time_s":31,"trailing_bytes":2}"#),
        // A reserved flag bit: its unknown payload shows up as trailing bytes.
        Case(characteristic: .rowerData, hex: "01 20 aa bb cc dd",
             json: head2AD1 + #","flags":8193,"more_data":true,"trailing_bytes":4}"#),
    ]

    static let controlPoint: [Case] = [
        Case(characteristic: .fitnessMachineControlPoint, hex: "01", json: head2AD9 + #","op_code":1,"request":"reset"}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "02 10 27", json: head2AD9 + #","op_code":2,"request":"set_target_speed","target_speed_kmh":100}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "03 9c ff", json: head2AD9 + #","op_code":3,"request":"set_target_inclination","target_inclination_percent":-10}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "04 ff", json: head2AD9 + #","op_code":4,"request":"set_target_resistance_level","target_resistance_level":25.5}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "04 e8 03", json: head2AD9 + #","op_code":4,"request":"set_target_resistance_level","target_resistance_level":100,"parameter_form":"sint16"}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "05 9c ff", json: head2AD9 + #","op_code":5,"request":"set_target_power","target_power_w":-100}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "06 96", json: head2AD9 + #","op_code":6,"request":"set_target_heart_rate","target_heart_rate_bpm":150}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "08 02", json: head2AD9 + #","op_code":8,"request":"stop_or_pause","control_information":"pause"}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "08 07", json: head2AD9 + #","op_code":8,"request":"stop_or_pause","control_information":7}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "09 f4 01", json: head2AD9 + #","op_code":9,"request":"set_targeted_expended_energy","targeted_expended_energy_kcal":500}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "0a 10 27", json: head2AD9 + #","op_code":10,"request":"set_targeted_number_of_steps","targeted_number_of_steps":10000}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "0b 64 00", json: head2AD9 + #","op_code":11,"request":"set_targeted_number_of_strides","targeted_number_of_strides":100}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "0c 40 42 0f", json: head2AD9 + #","op_code":12,"request":"set_targeted_distance","targeted_distance_m":1000000}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "0d 08 07", json: head2AD9 + #","op_code":13,"request":"set_targeted_training_time","targeted_training_time_s":1800}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "0e 2c 01 58 02", json: head2AD9 + #","op_code":14,"request":"set_targeted_time_in_two_heart_rate_zones","targeted_time_in_fat_burn_zone_s":300,"targeted_time_in_fitness_zone_s":600}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "0f 01 00 02 00 03 00", json: head2AD9 + #","op_code":15,"request":"set_targeted_time_in_three_heart_rate_zones","targeted_time_in_light_zone_s":1,"targeted_time_in_moderate_zone_s":2,"targeted_time_in_hard_zone_s":3}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "10 01 00 02 00 03 00 04 00 05 00", json: head2AD9 + #","op_code":16,"request":"set_targeted_time_in_five_heart_rate_zones","targeted_time_in_very_light_zone_s":1,"targeted_time_in_light_zone_s":2,"targeted_time_in_moderate_zone_s":3,"targeted_time_in_hard_zone_s":4,"targeted_time_in_maximum_zone_s":5}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "11 18 fc 22 01 28 33", json: head2AD9 + #","op_code":17,"request":"set_indoor_bike_simulation_parameters","wind_speed_mps":-1,"grade_percent":2.9,"coefficient_of_rolling_resistance":0.004,"wind_resistance_coefficient_kg_per_m":0.51}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "12 6c 52", json: head2AD9 + #","op_code":18,"request":"set_wheel_circumference","wheel_circumference_mm":2110}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "13 01", json: head2AD9 + #","op_code":19,"request":"spin_down_control","spin_down_control":"start"}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "14 b5 00", json: head2AD9 + #","op_code":20,"request":"set_targeted_cadence","targeted_cadence_rpm":90.5}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "80 13 01 e8 03 d0 07", json: head2AD9 + #","op_code":128,"request_op_code":19,"request":"spin_down_control","result_code":1,"result":"success","target_speed_low_kmh":10,"target_speed_high_kmh":20}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "80 04 03", json: head2AD9 + #","op_code":128,"request_op_code":4,"request":"set_target_resistance_level","result_code":3,"result":"invalid_parameter"}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "80 05 05", json: head2AD9 + #","op_code":128,"request_op_code":5,"request":"set_target_power","result_code":5,"result":"control_not_permitted"}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "80 07 02", json: head2AD9 + #","op_code":128,"request_op_code":7,"request":"start_or_resume","result_code":2,"result":"op_code_not_supported"}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "80 08 04", json: head2AD9 + #","op_code":128,"request_op_code":8,"request":"stop_or_pause","result_code":4,"result":"operation_failed"}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "80 04", json: head2AD9 + #","op_code":128,"request_op_code":4,"request":"set_target_resistance_level","truncated":true}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "80", json: head2AD9 + #","op_code":128,"truncated":true}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "15 01", json: head2AD9 + #","op_code":21,"request":"reserved","trailing_bytes":1}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "05 2c", json: head2AD9 + #","op_code":5,"request":"set_target_power","truncated":true}"#),
        Case(characteristic: .fitnessMachineControlPoint, hex: "", json: head2AD9 + #","truncated":true}"#),
    ]

    static let status: [Case] = [
        Case(characteristic: .fitnessMachineStatus, hex: "01", json: head2ADA + #","op_code":1,"event":"reset"}"#),
        Case(characteristic: .fitnessMachineStatus, hex: "02 02", json: head2ADA + #","op_code":2,"event":"fitness_machine_stopped_or_paused_by_the_user","control_information":"pause"}"#),
        Case(characteristic: .fitnessMachineStatus, hex: "03", json: head2ADA + #","op_code":3,"event":"fitness_machine_stopped_by_safety_key"}"#),
        Case(characteristic: .fitnessMachineStatus, hex: "06 9c ff", json: head2ADA + #","op_code":6,"event":"target_incline_changed","target_inclination_percent":-10}"#),
        Case(characteristic: .fitnessMachineStatus, hex: "07 7d", json: head2ADA + #","op_code":7,"event":"target_resistance_level_changed","target_resistance_level":12.5}"#),
        Case(characteristic: .fitnessMachineStatus, hex: "09 96", json: head2ADA + #","op_code":9,"event":"target_heart_rate_changed","target_heart_rate_bpm":150}"#),
        Case(characteristic: .fitnessMachineStatus, hex: "0d 40 42 0f", json: head2ADA + #","op_code":13,"event":"targeted_distance_changed","targeted_distance_m":1000000}"#),
        Case(characteristic: .fitnessMachineStatus, hex: "14 04", json: head2ADA + #","op_code":20,"event":"spin_down_status","spin_down_status":"stop_pedaling"}"#),
        Case(characteristic: .fitnessMachineStatus, hex: "15 b4 00", json: head2ADA + #","op_code":21,"event":"targeted_cadence_changed","targeted_cadence_rpm":90}"#),
        Case(characteristic: .fitnessMachineStatus, hex: "ff", json: head2ADA + #","op_code":255,"event":"control_permission_lost"}"#),
        Case(characteristic: .fitnessMachineStatus, hex: "16 01 02", json: head2ADA + #","op_code":22,"event":"reserved","trailing_bytes":2}"#),
    ]

    static let others: [Case] = [
        Case(characteristic: .supportedSpeedRange, hex: "64 00 10 27 0a 00",
             json: #"{"characteristic":"supported_speed_range","uuid":"2ad4","minimum_speed_kmh":1,"maximum_speed_kmh":100,"minimum_increment_kmh":0.1}"#),
        Case(characteristic: .supportedInclinationRange, hex: "9c ff 96 00 05 00",
             json: #"{"characteristic":"supported_inclination_range","uuid":"2ad5","minimum_inclination_percent":-10,"maximum_inclination_percent":15,"minimum_increment_percent":0.5}"#),
        Case(characteristic: .supportedResistanceLevelRange, hex: "f6 ff 2c 01 05 00",
             json: #"{"characteristic":"supported_resistance_level_range","uuid":"2ad6","minimum_resistance_level":-1,"maximum_resistance_level":30,"minimum_increment":0.5}"#),
        Case(characteristic: .supportedHeartRateRange, hex: "3c b4 01",
             json: #"{"characteristic":"supported_heart_rate_range","uuid":"2ad7","minimum_heart_rate_bpm":60,"maximum_heart_rate_bpm":180,"minimum_increment_bpm":1}"#),
        Case(characteristic: .supportedPowerRange, hex: "ce ff e8 03 05 00",
             json: #"{"characteristic":"supported_power_range","uuid":"2ad8","minimum_power_w":-50,"maximum_power_w":1000,"minimum_increment_w":5}"#),
        Case(characteristic: .supportedPowerRange, hex: "00 00 e8",
             json: #"{"characteristic":"supported_power_range","uuid":"2ad8","minimum_power_w":0,"truncated":true}"#),
        Case(characteristic: .trainingStatus, hex: "01 02 57 61 72 6d 20 75 70",
             json: #"{"characteristic":"training_status","uuid":"2ad3","flags":1,"training_status_code":2,"training_status":"warming_up","training_status_string":"Warm up"}"#),
        Case(characteristic: .trainingStatus, hex: "00 0d",
             json: #"{"characteristic":"training_status","uuid":"2ad3","flags":0,"training_status_code":13,"training_status":"manual_mode_quick_start"}"#),
        Case(characteristic: .trainingStatus, hex: "01",
             json: #"{"characteristic":"training_status","uuid":"2ad3","flags":1,"truncated":true}"#),
        Case(characteristic: .fitnessMachineFeature, hex: "ff ff 01 00 ff ff 01 00",
             json: #"{"characteristic":"fitness_machine_feature","uuid":"2acc","fitness_machine_features":["average_speed","cadence","total_distance","inclination","elevation_gain","pace","step_count","resistance_level","stride_count","expended_energy","heart_rate_measurement","metabolic_equivalent","elapsed_time","remaining_time","power_measurement","force_on_belt_and_power_output","user_data_retention"],"target_setting_features":["speed_target","inclination_target","resistance_target","power_target","heart_rate_target","targeted_expended_energy","targeted_step_number","targeted_stride_number","targeted_distance","targeted_training_time","targeted_time_in_two_heart_rate_zones","targeted_time_in_three_heart_rate_zones","targeted_time_in_five_heart_rate_zones","indoor_bike_simulation_parameters","wheel_circumference","spin_down_control","targeted_cadence"],"fitness_machine_features_raw":131071,"target_setting_features_raw":131071}"#),
        // Reserved bits stay in the raw integers and out of the name lists.
        Case(characteristic: .fitnessMachineFeature, hex: "00 00 02 80 00 00 00 00 01",
             json: #"{"characteristic":"fitness_machine_feature","uuid":"2acc","fitness_machine_features":[],"target_setting_features":[],"fitness_machine_features_raw":2147614720,"target_setting_features_raw":0,"trailing_bytes":1}"#),
        // A short value reports only the complete words it holds, like a short data record:
        // the word the machine did not send is absent, not an empty list and a 0.
        Case(characteristic: .fitnessMachineFeature, hex: "02 40 00 00",
             json: #"{"characteristic":"fitness_machine_feature","uuid":"2acc","fitness_machine_features":["cadence","power_measurement"],"fitness_machine_features_raw":16386,"truncated":true}"#),
        Case(characteristic: .fitnessMachineFeature, hex: "02 40 00 00 0c 00 00",
             json: #"{"characteristic":"fitness_machine_feature","uuid":"2acc","fitness_machine_features":["cadence","power_measurement"],"fitness_machine_features_raw":16386,"truncated":true}"#),
        Case(characteristic: .fitnessMachineFeature, hex: "02",
             json: #"{"characteristic":"fitness_machine_feature","uuid":"2acc","truncated":true}"#),
        Case(characteristic: .fitnessMachineFeature, hex: "02 40 00",
             json: #"{"characteristic":"fitness_machine_feature","uuid":"2acc","truncated":true}"#),
        Case(characteristic: .fitnessMachineFeature, hex: "",
             json: #"{"characteristic":"fitness_machine_feature","uuid":"2acc","truncated":true}"#),
        // No string flagged: bytes after the status code are counted, not dropped.
        Case(characteristic: .trainingStatus, hex: "00 01 57 61",
             json: #"{"characteristic":"training_status","uuid":"2ad3","flags":0,"training_status_code":1,"training_status":"idle","trailing_bytes":2}"#),
        // Flag bit 1 (extended string) without bit 0 carries no string either.
        Case(characteristic: .trainingStatus, hex: "02 0e 00",
             json: #"{"characteristic":"training_status","uuid":"2ad3","flags":2,"training_status_code":14,"training_status":"pre_workout","trailing_bytes":1}"#),
        Case(characteristic: .trainingStatus, hex: "",
             json: #"{"characteristic":"training_status","uuid":"2ad3","truncated":true}"#),
    ]

    @Test(arguments: dataRecords + controlPoint + status + others)
    func decodesToExactJSON(_ vector: Case) throws {
        let bytes = try #require(Hex.bytes(vector.hex))
        let message = FTMSMessage(characteristic: vector.characteristic, decoding: bytes)
        #expect(message.json == vector.json)
    }

    @Test func typedAccessorsAgreeWithJSON() throws {
        let bytes = try #require(Hex.bytes("fe 1f 39 30 64 00 b5 00 02 00 56 34 12 f6 ff 38 ff ff 7f ff ff 02 01 ff ff 7b ff ff 01 00"))
        guard case .data(let record) = FTMSMessage(characteristic: .indoorBikeData, decoding: bytes) else {
            Issue.record("not a data record")
            return
        }
        #expect(record.values.value(.instantaneousSpeed) == 123.45)
        #expect(record.values.value(.instantaneousCadence) == 90.5)
        #expect(record.values.value(.resistanceLevel) == -10)
        #expect(record.values.value(.totalEnergy) == nil)
        #expect(record.values.isNotAvailable(.totalEnergy))
        #expect(record.values.raw(.totalEnergy) == 0xFFFF)
        #expect(record.values.value(.strokeRate) == nil)
        #expect(!record.values.contains(.strokeRate))
        #expect(record.implausibleFields == [.instantaneousSpeed, .averagePower, .heartRate])
    }

    /// Every length from empty to over-long: the words held are exactly the complete ones,
    /// and every byte is accounted for as a word, a truncation or trailing bytes.
    @Test func featureWordsFollowTheLength() {
        let value: [UInt8] = [0x02, 0x40, 0x00, 0x00, 0x0C, 0x00, 0x00, 0x00, 0xAA, 0xBB]
        for length in 0...value.count {
            let feature = Array(value.prefix(length)).withUnsafeBytes { FitnessMachineFeature(decoding: $0) }
            #expect(feature.wordCount == min(length / 4, 2), "length \(length)")
            #expect(feature.truncated == (length < 8), "length \(length)")
            #expect(feature.trailingBytes == max(length - 8, 0), "length \(length)")
            #expect(feature.fitnessMachineFeatures == (length >= 4 ? 0x4002 : 0), "length \(length)")
            #expect(feature.supports(target: "resistance_target") == (length >= 8), "length \(length)")
        }
    }
}

@Suite("Field tables agree")
struct FieldTableTests {
    /// The decoder's packed table must say what the descriptors say, for every field at
    /// the top of its range (where a wrong width or sign shows).
    @Test(arguments: DataField.allCases)
    func formatMatchesDescriptor(field: DataField) {
        var values = FieldValues()
        values.set(field, raw: field.descriptor.format.rawRange.upperBound)
        for kind in [DataRecord.Kind.indoorBikeData, .rowerData] {
            guard kind.layout.entries.contains(where: { $0.field == field }) else { continue }
            let record = DataRecord(kind: kind, values: values)
            let decoded = record.encoded().withUnsafeBytes { DataRecord(kind: kind, decoding: $0) }
            #expect(decoded.values.raw(field) == field.descriptor.format.rawRange.upperBound, "\(field) in \(kind)")
            #expect(!decoded.truncated && decoded.trailingBytes == 0)
        }
    }
}

import DeterministicRandom
import FTMS
import Foundation
import Testing

/// Properties over random inputs, seeded so any failure reproduces.
@Suite("Round trips and robustness over random inputs")
struct RoundTripPropertyTests {
    static let iterations = 5_000

    func randomRaw(_ format: WireFormat, using random: inout SplitMix64) -> Int32 {
        Int32.random(in: format.rawRange, using: &random)
    }

    @Test(arguments: [DataRecord.Kind.indoorBikeData, .rowerData])
    func dataRecordsRoundTrip(kind: DataRecord.Kind) throws {
        var random = SplitMix64(seed: kind == .indoorBikeData ? 0x2AD2 : 0x2AD1)
        for _ in 0..<Self.iterations {
            let flags = UInt16.random(in: 0...0x1FFF, using: &random)
            var values = FieldValues()
            for entry in kind.layout.entries where RecordLayout.isPresent(flagBit: entry.flagBit, in: flags) {
                values.set(entry.field, raw: randomRaw(entry.field.descriptor.format, using: &random))
            }
            let record = DataRecord(kind: kind, flags: flags, values: values)
            let bytes = record.encoded()
            let decoded = bytes.withUnsafeBytes { DataRecord(kind: kind, decoding: $0) }
            #expect(decoded == record, "flags \(flags) bytes \(Hex.string(bytes))")
            #expect(!decoded.truncated && decoded.trailingBytes == 0)

            // The JSON carries exactly the present fields, each at its scaled value.
            let json = try Vectors.parse(FTMSMessage.data(decoded).json)
            #expect(json["flags"] == .number(Double(flags)))
            #expect(json["more_data"] == .bool(flags & 1 == 1))
            for field in DataField.allCases {
                let name = field.descriptor.jsonName.description
                guard let raw = values.raw(field) else {
                    #expect(json[name] == nil, "\(name) absent from flags \(flags) but printed")
                    continue
                }
                let expected: JSONValue = raw == field.descriptor.notAvailable
                    ? .null : .number(Double(raw) / field.descriptor.scale.testDivisor)
                #expect(json[name] == expected, "\(name) raw \(raw)")
            }
        }
    }

    @Test func controlPointRequestsRoundTrip() {
        var random = SplitMix64(seed: 0x2AD9)
        for _ in 0..<Self.iterations {
            guard let opCode = ControlPointOpCode.allCases.filter({ $0 != .responseCode }).randomElement(using: &random) else { continue }
            let form: ControlPointRequest.ResistanceForm = Bool.random(using: &random) ? .sint16 : .uint8
            let layout = opCode.parameters(parameterBytes: form == .sint16 ? 2 : 1)
            var request = ControlPointRequest(
                opCode: opCode, parameters: layout.map { randomRaw($0.field.format, using: &random) })
            if opCode == .setTargetResistanceLevel { request.resistanceForm = form }
            let bytes = request.encoded()
            let decoded = bytes.withUnsafeBytes { ControlPointMessage(decoding: $0) }
            #expect(decoded == .request(request), "\(Hex.string(bytes))")
        }
    }

    @Test func controlPointResponsesRoundTrip() {
        var random = SplitMix64(seed: 0x80)
        for _ in 0..<Self.iterations {
            let requestOpCode = UInt8.random(in: 0...0x15, using: &random)
            guard let result = ResultCode.allCases.randomElement(using: &random) else { continue }
            let spinDown = requestOpCode == 0x13 && result == .success
            let parameters: [Int32] = spinDown ? [randomRaw(.uint16, using: &random), randomRaw(.uint16, using: &random)] : []
            let response = ControlPointResponse(requestOpCode: requestOpCode, result: result, parameters: parameters)
            let bytes = response.encoded()
            #expect(bytes.count == 3 + 2 * parameters.count)
            let decoded = bytes.withUnsafeBytes { ControlPointMessage(decoding: $0) }
            #expect(decoded == .response(response), "\(Hex.string(bytes))")
        }
    }

    @Test func statusRoundTrips() {
        var random = SplitMix64(seed: 0x2ADA)
        for _ in 0..<Self.iterations {
            guard let opCode = StatusOpCode.allCases.randomElement(using: &random) else { continue }
            let layout = opCode.parameters(parameterBytes: 1)
            let status = FitnessMachineStatus(opCode: opCode, parameters: layout.map { randomRaw($0.field.format, using: &random) })
            let bytes = status.encoded()
            let decoded = bytes.withUnsafeBytes { FitnessMachineStatus(decoding: $0) }
            #expect(decoded == status, "\(Hex.string(bytes))")
        }
    }

    @Test func featuresRangesAndTrainingStatusRoundTrip() {
        var random = SplitMix64(seed: 0x2ACC)
        for _ in 0..<Self.iterations {
            let feature = FitnessMachineFeature(
                fitnessMachineFeatures: UInt32.random(in: .min ... .max, using: &random),
                targetSettingFeatures: UInt32.random(in: .min ... .max, using: &random))
            #expect(FTMSMessage(characteristic: .fitnessMachineFeature, decoding: feature.encoded()) == .feature(feature))

            guard let kind = SupportedRange.Kind.allCases.randomElement(using: &random) else { continue }
            var range = SupportedRange(kind: kind, minimum: 0, maximum: 0, increment: 0)
            range.raws = ParameterValues(kind.layout.map { randomRaw($0.format, using: &random) })
            #expect(FTMSMessage(characteristic: kind.characteristic, decoding: range.encoded()) == .range(range))

            let text = String((0..<Int.random(in: 0...12, using: &random)).map { _ in
                Character(UnicodeScalar(UInt8.random(in: 0x20...0x7E, using: &random)))
            })
            let status = TrainingStatus(status: UInt8.random(in: 0...0x20, using: &random), string: Bool.random(using: &random) ? text : nil)
            #expect(FTMSMessage(characteristic: .trainingStatus, decoding: status.encoded()) == .trainingStatus(status))
        }
    }

    /// Any bytes at all: decoding never traps, always prints valid JSON, and a value that
    /// decoded cleanly encodes back to exactly the bytes it came from.
    @Test(arguments: Characteristic.allCases)
    func arbitraryBytes(characteristic: Characteristic) throws {
        var random = SplitMix64(seed: UInt64(characteristic.rawValue))
        for _ in 0..<Self.iterations {
            let bytes = random.bytes(count: Int.random(in: 0...40, using: &random))
            let message = FTMSMessage(characteristic: characteristic, decoding: bytes)
            let json = try Vectors.parse(message.json)
            #expect(json["uuid"] == .string(characteristic.shortUUID.description))
            let clean = !message.isTruncated && json["trailing_bytes"] == nil
            if clean, characteristic != .trainingStatus {
                #expect(message.encoded() == bytes, "\(characteristic.shortUUID) \(Hex.string(bytes))")
            }
            // Truncation and trailing bytes are exclusive: leftover bytes of a cut field are
            // part of the truncation, not trailing data.
            #expect(!(message.isTruncated && json["trailing_bytes"] != nil))
        }
    }

    /// Every prefix of every record with all fields present is a truncation, never a trap.
    @Test(arguments: [DataRecord.Kind.indoorBikeData, .rowerData])
    func everyPrefixIsTruncated(kind: DataRecord.Kind) {
        var values = FieldValues()
        for entry in kind.layout.entries { values.set(entry.field, raw: 1) }
        let full = DataRecord(kind: kind, flags: kind.layout.allFieldsFlags, values: values).encoded()
        for length in 0..<full.count {
            let decoded = Array(full.prefix(length)).withUnsafeBytes { DataRecord(kind: kind, decoding: $0) }
            let expectTruncated = length < full.count
            #expect(decoded.truncated == expectTruncated, "length \(length)")
            #expect(decoded.trailingBytes == 0)
        }
    }
}

extension Scale {
    /// Written apart from the codec's own table so the property checks it.
    var testDivisor: Double {
        switch self {
        case .one: 1
        case .half: 2
        case .tenth: 10
        case .hundredth: 100
        case .thousandth: 1000
        case .tenThousandth: 10000
        }
    }
}

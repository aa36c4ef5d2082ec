import FTMS
import Testing

/// Every frame of `Tests/FTMSTests/Vectors/real-ftms-frames.md` and of the extra corpus gathered from
/// machines it has no frames of (`Vectors/extra-real-frames.md`), decoded and compared field
/// by field with what its source states.
@Suite("Real frames from real machines")
struct RealFrameTests {
    static let ourVectors = (try? Vectors.load("real-ftms-frames")) ?? []
    static let extraVectors = (try? Vectors.load("extra-real-frames")) ?? []

    @Test func vectorFilesAreComplete() {
        // B1–B28, R1–R21 and the feature/range/status/control rows: a file that failed to
        // load or lost rows must fail here rather than make the parameterised tests vacuous.
        #expect(Self.ourVectors.count == 86)
        #expect(Self.extraVectors.count >= 40)
        #expect(Set(Self.extraVectors.map(\.uuid)) == ["2ad1", "2ad2"])
    }

    @Test("Frames in our vectors decode to their stated values", arguments: ourVectors)
    func ourFrame(_ frame: RealFrame) throws {
        try checkDecode(frame)
    }

    @Test("Frames from machines outside our vectors decode to their stated values", arguments: extraVectors)
    func extraFrame(_ frame: RealFrame) throws {
        try checkDecode(frame)
    }

    @Test("Quirk frames are flagged", arguments: ourVectors.filter { !$0.isGolden })
    func quirkFlagged(_ frame: RealFrame) throws {
        let decoded = try decode(frame)
        let flagged = decoded["truncated"] != nil || decoded["trailing_bytes"] != nil || decoded["implausible"] != nil
            || decoded["parameter_form"] != nil
        #expect(flagged, "\(frame.id) (\(frame.quirk ?? "")) decoded without any flag")
    }

    @Test("Golden frames carry no flag", arguments: (ourVectors + extraVectors).filter(\.isGolden))
    func goldenUnflagged(_ frame: RealFrame) throws {
        let decoded = try decode(frame)
        #expect(decoded["truncated"] == nil && decoded["trailing_bytes"] == nil && decoded["implausible"] == nil,
                "\(frame.id) golden frame was flagged: \(decoded)")
    }

    @Test("Re-encoding a complete real frame gives back its bytes", arguments: (ourVectors + extraVectors))
    func reencode(_ frame: RealFrame) throws {
        let characteristic = try #require(frame.characteristic)
        let bytes = try #require(frame.bytes)
        let message = FTMSMessage(characteristic: characteristic, decoding: bytes)
        guard !message.isTruncated, (try decode(frame))["trailing_bytes"] == nil else { return }
        #expect(message.encoded() == bytes, "\(frame.id)")
    }

    func decode(_ frame: RealFrame) throws -> [String: JSONValue] {
        let characteristic = try #require(frame.characteristic, "unknown uuid \(frame.uuid)")
        let bytes = try #require(frame.bytes, "bad hex \(frame.hex)")
        return try Vectors.parse(FTMSMessage(characteristic: characteristic, decoding: bytes).json)
    }

    /// Every expected key must match, and a decoded field the source does not state is an error:
    /// a spurious field is as wrong as a missing one.
    func checkDecode(_ frame: RealFrame) throws {
        let decoded = try decode(frame)
        #expect(decoded["uuid"] == .string(frame.uuid))
        for (key, value) in frame.expected {
            #expect(decoded[key] == value, "\(frame.id): \(key) is \(decoded[key]?.description ?? "absent"), source says \(value)")
        }
        let metadata: Set<String> = ["characteristic", "uuid", "implausible", "parameter_form"]
        let extra = Set(decoded.keys).subtracting(frame.expected.keys).subtracting(metadata)
        #expect(extra.isEmpty, "\(frame.id): fields the source does not state: \(extra.sorted())")
    }
}

import Capture
import FTMS
import Testing

@Suite("capture files")
struct FixtureFileTests {
    /// The fixture directory, found from this source file so the test needs no Foundation.
    static let fixtures = String(#filePath.prefix(upTo: #filePath.lastIndex(of: "/") ?? #filePath.endIndex)) + "/Fixtures/"

    @Test func anotherToolsRowerCaptureReadsAndDecodes() throws {
        let bytes = try CaptureFile.load(path: Self.fixtures + "other-tool-rower.ftmscap")
        #expect(CaptureFormat(detecting: bytes) == .ftmscap)
        var reader = try captureReader(for: bytes)
        #expect(
            reader.completeHeader()
                == CaptureHeader(
                    name: "SF-Rower-0007", address: "C0:11:22:33:44:07", manufacturer: "SolidFocus", model: "SF-Rower-M1",
                    type: .rower, feature: [0x26, 0x56, 0, 0, 0, 0, 0, 0], start: .seconds(1_795_244_400)))
        let (events, error) = drain(&reader)
        #expect(error == nil)
        #expect(events.count == 10)
        let rows = events.filter { $0.characteristic == .rowerData }
        #expect(rows.map(\.time) == [.seconds(1), .seconds(2), .seconds(3), .seconds(4)])
        let records = rows.compactMap { event -> DataRecord? in
            guard case .attribute(.notify, _, let value) = event.kind else { return nil }
            return value.withUnsafeBytes { DataRecord(kind: .rowerData, decoding: $0) }
        }
        #expect(records.map { $0.values.raw(.strokeCount) } == [1, 2, 3, 4])
        #expect(records.map { $0.values.raw(.totalDistance) } == [10, 20, 30, 40])
        #expect(records.allSatisfy { $0.values.value(.strokeRate) == 24 && !$0.truncated })
        #expect(events.first == CaptureEvent(time: .zero, kind: .connected))
        #expect(events.last == CaptureEvent(time: .seconds(5), kind: .disconnected))
        #expect(events.contains(.attribute(.indicate, AttributeUUID(.fitnessMachineControlPoint), [0x80, 0x00, 0x01], at: .milliseconds(550))))
    }

    @Test func loadingSaysWhyAFileCannotBeRead() {
        #expect(performing: { try CaptureFile.load(path: "/nonexistent/x.ftmscap") }, throws: {
            "\($0)" == "/nonexistent/x.ftmscap: No such file or directory"
        })
        #expect(performing: { try CaptureFile.load(path: Self.fixtures) }, throws: { "\($0)" == "\(Self.fixtures): is a directory" })
    }
}

import TestSupport
import FTMS
import Foundation
import Simulator

/// The bundled captures (`captures/`), read here with Foundation's JSON parser rather than the
/// `Capture` module, so the frames a test expects are worked out independently of the reader
/// `ftms-sim` rides them through.
enum CaptureFixture {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("captures")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Every FTMS notification in an `.ftmscap` file, in file order.
    static func recording(_ name: String) throws -> [RecordedFrame] {
        let text = try String(contentsOfFile: path(name), encoding: .utf8)
        return try text.split(separator: "\n").filter { $0.hasPrefix("{\"t\"") }.compactMap { line -> RecordedFrame? in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            guard object["op"] as? String == "notify", let uuid = (object["uuid"] as? String).flatMap({ UInt16($0, radix: 16) }),
                let characteristic = Characteristic(rawValue: uuid), let hex = object["hex"] as? String,
                let seconds = object["t"] as? Double
            else { return nil }
            return RecordedFrame(offset: .seconds(seconds), characteristic: characteristic, bytes: bytes(hex))
        }
    }

    /// The notifications on one characteristic, as a client should receive them.
    static func frames(_ name: String, on characteristic: Characteristic) throws -> [[UInt8]] {
        try recording(name).filter { $0.characteristic == characteristic }.map(\.bytes)
    }

    static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex), index < hex.endIndex {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    /// A hand-written capture in the test's `directory`, which removes it; returns its path.
    static func write(_ lines: [String], name: String = "ride.ftmscap", in directory: TemporaryDirectory) throws -> String {
        let file = directory.file(name)
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file))
        return file
    }
}

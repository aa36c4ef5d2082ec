import OwnThread
import TestSupport
import Foundation
import Testing

/// `ftms-bridge decode` as users run it (contract §3.1, §9).
@Suite("ftms-bridge decode")
struct DecodeCommandTests {
    static let ic4 = #"{"characteristic":"indoor_bike_data","uuid":"2ad2","flags":580,"more_data":false,"instantaneous_speed_kmh":7.3,"instantaneous_cadence_rpm":129,"instantaneous_power_w":290,"heart_rate_bpm":0}"#

    @Test func framesAsArguments() async throws {
        let result = try await ProcessRunner.run(["decode", "0x2AD2", "44 02 da 02 02 01 22 01 00", "44:02:da:02:02:01:22:01:00", "440202"])
        #expect(result.status == 0)
        #expect(result.lines.count == 3)
        #expect(result.lines[0] == Self.ic4[...])
        #expect(result.lines[1] == Self.ic4[...])
        #expect(result.lines[2].contains(#""truncated":true"#))
        #expect(result.stderr.isEmpty)
    }

    @Test func stdinWithBadLinesKeepsGoingAndFailsAtTheEnd() async throws {
        let input = "# a comment\n44 02 da 02 02 01 22 01 00\r\nnot hex\n\n   \n44 02 da 02 02 01 22 01 00\n54 0\n44 02 da 02 02 01 22 01 00"
        let result = try await ProcessRunner.run(["decode", "indoor-bike-data"], stdin: input)
        #expect(result.status == 1)
        let lines = result.lines
        #expect(lines.count == 5)
        #expect(lines[0] == Self.ic4[...])
        #expect(lines[1] == #"{"line":3,"error":"invalid hex character 'n' at column 1"}"#)
        #expect(lines[2] == Self.ic4[...])
        #expect(lines[3] == #"{"line":7,"error":"odd number of hex digits in the group ending at column 4"}"#)
        #expect(lines[4] == Self.ic4[...], "the last line has no newline and must still be decoded")
        #expect(result.stderr == "ftms-bridge: decode: 2 of 8 lines could not be read\n")
    }

    /// A line longer than any frame is one error with its own line number and full length,
    /// counted in the summary, however many reads it spans; the lines after it decode.
    @Test func overLongLineIsOneNumberedError() async throws {
        let long = String(repeating: "ab", count: 300_000)
        let input = "44 02 da 02 02 01 22 01 00\n" + long + "\r\n44 02 da 02 02 01 22 01 00\n"
        let result = try await ProcessRunner.run(["decode", "2ad2"], stdin: input)
        #expect(result.status == 1)
        #expect(result.lines == [Self.ic4[...], #"{"line":2,"error":"line is 600001 bytes, longer than any frame"}"#, Self.ic4[...]])
        #expect(result.stderr == "ftms-bridge: decode: 1 of 3 lines could not be read\n")
    }

    /// Several megabytes in: lines cut by the 1 MiB reads, and output leaving in 1 MiB writes
    /// from the writer thread, come out whole and in order.
    /// (The megabytes are built and compared on a thread of their own, off the cooperative pool.)
    @Test func linesAcrossReadBlocksStayWholeAndInOrder() async throws {
        let frames = ["44 02 da 02 02 01 22 01 00", "4402da0202012201", "01 00", "00 00 10 27"]
        let input = await onOwnThread {
            var input = ""
            for index in 0..<200_000 { input += frames[index % 4] + (index % 7 == 0 ? "\r\n" : "\n") }
            return input
        }
        let result = try await ProcessRunner.run(["decode", "2ad2"], stdin: input)
        #expect(result.status == 0)
        var expected: [String] = []
        for frame in frames { expected.append(String(try #require(try await ProcessRunner.run(["decode", "2ad2", frame]).lines.first))) }
        let (count, mismatches) = await onOwnThread { [expected] in
            let lines = result.lines
            return (lines.count, lines.enumerated().filter { $0.element != expected[$0.offset % 4] }.count)
        }
        #expect(count == 200_000)
        #expect(mismatches == 0)
    }

    @Test func unknownCharacteristicIsAOneLineError() async throws {
        let result = try await ProcessRunner.run(["decode", "heart-rate", "00"])
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("unknown characteristic 'heart-rate'"))
    }

    /// Garbage of every kind on stdin: NULs, invalid UTF-8, a megabyte with no newline.
    @Test func garbageNeverCrashes() async throws {
        var random = SystemRandomNumberGenerator()
        var garbage = Data((0..<200_000).map { _ in UInt8.random(in: 0...255, using: &random) })
        garbage.append(Data(repeating: UInt8(ascii: "a"), count: 1 << 20))
        garbage.append(Data("\n44 02 da 02 02 01 22 01 00\n".utf8))
        let scratch = try TemporaryDirectory(prefix: "decode")
        let file = URL(fileURLWithPath: scratch.file("garbage"))
        try garbage.write(to: file)
        let result = try await ProcessRunner.run(["decode", "2ad2"], stdinFile: file)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.lines.last == Self.ic4[...])
        let notJSON = await onOwnThread { result.lines.filter { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) == nil }.map { String($0.prefix(120)) } }
        #expect(notJSON.isEmpty, "not JSON: \(notJSON.prefix(3))")
        #expect(result.lines.contains { $0.contains("longer than any frame") })
    }

    /// Memory must not grow with input: 25 times the frames, about the same peak RSS.
    ///
    /// Peak memory is the child's own high-water mark (see ``ProcessRunner/Result``).
    @Test func streamsInConstantMemory() async throws {
        let scratch = try TemporaryDirectory(prefix: "decode")
        func writeFrames(_ count: Int) throws -> URL {
            let file = URL(fileURLWithPath: scratch.file("frames-\(count)"))
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            let chunk = Data(String(repeating: "54 08 95 04 3a 00 14 03 00 27 00 80 03\n", count: 1_000).utf8)
            for _ in 0..<(count / 1_000) { try handle.write(contentsOf: chunk) }
            return file
        }
        let smallInput = try writeFrames(20_000)
        let largeInput = try writeFrames(500_000)
        let small = try await ProcessRunner.run(["decode", "2ad2"], stdinFile: smallInput)
        let large = try await ProcessRunner.run(["decode", "2ad2"], stdinFile: largeInput)
        #expect(small.status == 0 && large.status == 0)
        #expect(small.maxResidentKiB > 0 && large.maxResidentKiB > 0, "no memory figure was read")
        #expect(await onOwnThread { large.lines.count } == 500_000)
        #expect(large.maxResidentKiB - small.maxResidentKiB < 2_048,
                "peak RSS grew from \(small.maxResidentKiB) KiB to \(large.maxResidentKiB) KiB")
    }

    @Test func demoDecodesEveryEmbeddedFrame() async throws {
        let result = try await ProcessRunner.run(["demo", "--json"])
        #expect(result.status == 0)
        #expect(result.lines.count == 14)
        #expect(result.lines.allSatisfy { $0.hasPrefix(#"{"characteristic":"#) })
    }
}

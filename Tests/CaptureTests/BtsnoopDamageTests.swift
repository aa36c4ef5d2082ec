import DeterministicRandom
import Capture
import Testing

/// Damaged input: the reader must never trap, must deliver every event before the damage,
/// and must say where the damage is.
@Suite("btsnoop damage")
struct BtsnoopDamageTests {
    @Test(arguments: BtsnoopBuilder.Datalink.allCases)
    func truncationAtEveryByteKeepsThePrefixAndNamesTheRecord(_ datalink: BtsnoopBuilder.Datalink) throws {
        let file = BikeSessionFixture.build(datalink)
        var whole = try BtsnoopReader(bytes: file.bytes)
        let all = drain(&whole).events
        let boundaries = Set(file.recordOffsets + [file.bytes.count])
        for cut in 0..<file.bytes.count {
            let prefix = Array(file.bytes.prefix(cut))
            guard cut >= 16 else {
                #expect(throws: CaptureError(.byteOffset(0), "file header truncated: \(cut) of 16 bytes")) {
                    try BtsnoopReader(bytes: prefix)
                }
                continue
            }
            var reader = try BtsnoopReader(bytes: prefix)
            let (events, error) = drain(&reader)
            #expect(Array(all.prefix(events.count)) == events, "cut at \(cut)")
            if boundaries.contains(cut) {
                #expect(error == nil, "cut at record boundary \(cut)")
            } else {
                let damaged = file.recordOffsets.last { $0 < cut } ?? -1
                #expect(error?.location == .byteOffset(damaged), "cut at \(cut)")
                #expect(error.map { !$0.description.contains("\n") } ?? false)
            }
            #expect(try reader.next() == nil, "a reader stays finished after an error or the end")
        }
    }

    @Test func randomBytesNeverTrap() throws {
        var random = SplitMix64(seed: 0x5EED_0001)
        for round in 0..<2000 {
            let length = Int(random.next() % 400)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if round % 2 == 0 {
                // Most garbage fails the magic check; half the rounds get a valid header.
                let datalink: UInt32 = [1001, 1002, 2001][round / 2 % 3]
                bytes = Array("btsnoop".utf8) + [0, 0, 0, 0, 1] + BtsnoopBuilder.bigEndian(datalink) + bytes
            }
            checkNeverTraps(bytes, round: round)
        }
    }

    @Test(arguments: BtsnoopBuilder.Datalink.allCases)
    func flippedBytesInARealSessionNeverTrap(_ datalink: BtsnoopBuilder.Datalink) {
        let original = BikeSessionFixture.build(datalink).bytes
        var random = SplitMix64(seed: UInt64(datalink.rawValue))
        for round in 0..<1500 {
            var bytes = original
            for _ in 0..<(1 + random.next() % 8) {
                let index = 16 + Int(random.next() % UInt64(bytes.count - 16))
                bytes[index] = UInt8(truncatingIfNeeded: random.next())
            }
            checkNeverTraps(bytes, round: round)
        }
    }

    /// Reads to the end; an error must point inside the file.
    private func checkNeverTraps(_ bytes: [UInt8], round: Int) {
        do {
            var reader = try BtsnoopReader(bytes: bytes)
            _ = reader.completeHeader()
            let (_, error) = drain(&reader)
            if case .byteOffset(let offset)? = error?.location {
                #expect(offset >= 16 && offset < bytes.count, "round \(round)")
            }
        } catch {
            #expect([.byteOffset(0), .byteOffset(8), .byteOffset(12)].contains(error.location), "round \(round)")
        }
    }
}


import DeterministicRandom
import FTMS
import Testing

/// The split-record merger of contract §3.
@Suite("Split-record merger")
struct RecordMergerTests {
    func record(_ kind: DataRecord.Kind, _ hex: String) throws -> DataRecord {
        let bytes = try #require(Hex.bytes(hex))
        return bytes.withUnsafeBytes { DataRecord(kind: kind, decoding: $0) }
    }

    /// The Viking Pro V sends its bit-0 = 0 stroke packet first, then energy and distance
    /// packets at other rates (real frames R7–R10).
    @Test func bitZeroPacketFirst() throws {
        var merger = RecordMerger(kind: .rowerData)
        let first = try #require(merger.ingest(try record(.rowerData, "f8 00 26 0b 00 c7 00 00 00 2c 00 1b 00 02 00"), at: .zero))
        #expect(first.values.value(.strokeRate) == 19)
        #expect(!first.values.contains(.totalDistance))
        #expect(!first.moreData)

        #expect(merger.ingest(try record(.rowerData, "01 01 04 00 c5 01 07"), at: .milliseconds(60)) == nil)
        #expect(merger.ingest(try record(.rowerData, "05 0a 87 00 00 00 3e 00"), at: .milliseconds(500)) == nil)

        let second = try #require(merger.ingest(try record(.rowerData, "f8 00 3a 10 00 95 00 00 00 6a 00 22 00 02 00"), at: .milliseconds(2_500)))
        #expect(second.values.value(.strokeRate) == 29)
        #expect(second.values.value(.instantaneousPower) == 106)
        // Distance arrived 2.0 s ago: still fresh at the window's edge.
        #expect(second.values.value(.totalDistance) == 135)
        #expect(second.values.value(.elapsedTime) == 62)
        // Energy is 2.44 s old, but a running total is still true: it stays.
        #expect(second.values.value(.totalEnergy) == 4)
        // An instantaneous figure that old would be dropped (see below); the Viking's come
        // with every stroke packet, so none is.
        #expect(second.encoded() == DataRecord(kind: .rowerData, values: second.values).encoded())
    }

    /// A conformant machine: More Data packets, then the bit-0 = 0 packet closes the record.
    @Test func conformantSplitMergesEveryPart() throws {
        var merger = RecordMerger(kind: .indoorBikeData)
        #expect(merger.ingest(try record(.indoorBikeData, "11 00 10 27 00"), at: .milliseconds(0)) == nil)
        #expect(merger.ingest(try record(.indoorBikeData, "c5 00 b4 00 c8 00"), at: .milliseconds(100)) == nil)
        let merged = try #require(merger.ingest(try record(.indoorBikeData, "00 00 c4 09"), at: .milliseconds(200)))
        #expect(merged.values.value(.instantaneousSpeed) == 25)
        #expect(merged.values.value(.totalDistance) == 10_000)
        #expect(merged.values.value(.instantaneousCadence) == 90)
        #expect(merged.values.value(.instantaneousPower) == 200)
        #expect(merged.flags == 0x0054)

        // A later packet without cadence does not blank it while it is fresh.
        let next = try #require(merger.ingest(try record(.indoorBikeData, "00 00 d0 07"), at: .milliseconds(1_200)))
        #expect(next.values.value(.instantaneousSpeed) == 20)
        #expect(next.values.value(.instantaneousCadence) == 90)
        // And once it is stale, it goes.
        let later = try #require(merger.ingest(try record(.indoorBikeData, "00 00 d0 07"), at: .milliseconds(2_300)))
        #expect(!later.values.contains(.instantaneousCadence))
    }

    @Test func resetDiscardsAPartialRecord() throws {
        var merger = RecordMerger(kind: .indoorBikeData)
        _ = merger.ingest(try record(.indoorBikeData, "41 00 c8 00"), at: .zero)
        merger.reset()
        let merged = try #require(merger.ingest(try record(.indoorBikeData, "00 00 c4 09"), at: .milliseconds(10)))
        #expect(!merged.values.contains(.instantaneousPower))
    }

    @Test func otherKindsAndFlaglessRecordsAreIgnored() throws {
        var merger = RecordMerger(kind: .indoorBikeData)
        #expect(merger.ingest(try record(.rowerData, "00 00 3d 07 00"), at: .zero) == nil)
        #expect(merger.ingest(try record(.indoorBikeData, "44"), at: .zero) == nil)
    }

    /// A machine that never splits: every merged sample is the record itself.
    @Test func wholeRecordsPassThrough() {
        var random = SplitMix64(seed: 7)
        var merger = RecordMerger(kind: .indoorBikeData)
        let flags: UInt16 = 0x0B44
        for second in 0..<500 {
            var values = FieldValues()
            for entry in DataRecord.Kind.indoorBikeData.layout.entries where RecordLayout.isPresent(flagBit: entry.flagBit, in: flags) {
                values.set(entry.field, raw: Int32.random(in: 0...200, using: &random))
            }
            let record = DataRecord(kind: .indoorBikeData, flags: flags, values: values)
            #expect(merger.ingest(record, at: .seconds(second)) == record)
        }
    }
}

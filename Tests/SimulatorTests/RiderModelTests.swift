import FTMS
import Simulator
import Testing

@Suite("Rider model")
struct RiderModelTests {
    static func frames(_ model: inout RiderModel, _ count: Int, every interval: Duration = .seconds(1)) -> [DataRecord] {
        (0..<count).compactMap { _ in model.nextFrame(after: interval) }.map { DataRecord(kind: model.type.dataKind, decoding: $0) }
    }

    @Test func sameSeedSameFramesOtherSeedOtherFrames() {
        var first = RiderModel(type: .bike, seed: 42)
        var again = RiderModel(type: .bike, seed: 42)
        var other = RiderModel(type: .bike, seed: 43)
        let a = (0..<50).compactMap { _ in first.nextFrame(after: .milliseconds(250)) }
        let b = (0..<50).compactMap { _ in again.nextFrame(after: .milliseconds(250)) }
        let c = (0..<50).compactMap { _ in other.nextFrame(after: .milliseconds(250)) }
        #expect(a.count == 50 && a == b)
        #expect(a != c)
    }

    @Test func bikeFramesCarryThePromisedFieldsWithinBounds() {
        var model = RiderModel(type: .bike, seed: 7)
        let records = Self.frames(&model, 120)
        for record in records {
            #expect(!record.truncated && record.trailingBytes == 0 && !record.moreData)
            #expect(record.values.fields == [.instantaneousSpeed, .instantaneousCadence, .totalDistance, .resistanceLevel,
                                             .instantaneousPower, .totalEnergy, .energyPerHour, .energyPerMinute, .elapsedTime])
            #expect((60...100).contains(record.values.value(.instantaneousCadence) ?? 0))
            #expect(record.implausibleFields.isEmpty)
        }
        // Counters only grow, one second of elapsed time per one-second frame.
        let elapsed = records.compactMap { $0.values.value(.elapsedTime) }
        #expect(elapsed == (1...120).map(Double.init))
        let distance = records.compactMap { $0.values.value(.totalDistance) }
        #expect(distance == distance.sorted() && (distance.last ?? 0) > 500)
    }

    @Test func resistancePowerTargetsPauseAndReset() {
        var model = RiderModel(type: .bike, seed: 9)
        let easy = Self.frames(&model, 10).compactMap { $0.values.value(.instantaneousPower) }.reduce(0, +)
        model.apply(.targetResistance(24))
        let hard = Self.frames(&model, 10)
        #expect(hard.allSatisfy { $0.values.value(.resistanceLevel) == 24 })
        #expect(hard.compactMap { $0.values.value(.instantaneousPower) }.reduce(0, +) > easy * 1.5)
        model.apply(.targetPower(watts: 200))
        #expect(Self.frames(&model, 5).allSatisfy { abs(($0.values.value(.instantaneousPower) ?? 0) - 200) <= 3 })
        model.apply(.paused)
        let paused = Self.frames(&model, 3)
        #expect(paused.allSatisfy { $0.values.value(.instantaneousCadence) == 0 && $0.values.value(.instantaneousPower) == 0 })
        #expect(Set(paused.compactMap { $0.values.value(.elapsedTime) }).count == 1)
        model.apply(.reset)
        model.apply(.startedOrResumed)
        let fresh = Self.frames(&model, 1)[0]
        #expect(fresh.values.value(.elapsedTime) == 1)
        #expect((fresh.values.value(.totalDistance) ?? 99) < 20)
        #expect(fresh.values.value(.resistanceLevel) == 10)
    }

    @Test func rowerFrames() {
        var model = RiderModel(type: .rower, seed: 3)
        let records = Self.frames(&model, 60)
        for record in records {
            #expect(!record.truncated && record.trailingBytes == 0)
            #expect((18...32).contains(record.values.value(.strokeRate) ?? 0))
            // Pace and power agree through the ergometer's watts = 2.8 v³.
            let power = record.values.value(.instantaneousPower) ?? 0
            let pace = record.values.value(.instantaneousPace) ?? 0
            let velocity = 500 / pace
            #expect(abs(2.8 * velocity * velocity * velocity - power) < power * 0.05)
        }
        let strokes = records.compactMap { $0.values.value(.strokeCount) }
        #expect(strokes == strokes.sorted() && (strokes.last ?? 0) >= 18)
    }
}

import FTMS
import Simulator
import Testing

@Suite("Recorded ride")
struct RecordedRideTests {
    /// Pulls until the source ends, or `limit` frames.
    static func drain(_ ride: inout RecordedRide, limit: Int = 10_000) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        while frames.count < limit, let frame = ride.nextFrame(after: .seconds(1)) { frames.append(frame) }
        return frames
    }

    /// Known answer: exactly the capture's own data notifications, in file order, then the end
    /// (and it stays ended).
    @Test(arguments: [("bike-steady.ftmscap", Characteristic.indoorBikeData, 779), ("rower-viking-split.ftmscap", .rowerData, 939)])
    func yieldsTheCapturesFramesInOrderThenEnds(_ name: String, _ characteristic: Characteristic, _ count: Int) throws {
        let expected = try CaptureFixture.frames(name, on: characteristic)
        var ride = try RecordedRide(characteristic: characteristic, recording: try CaptureFixture.recording(name))
        #expect(ride.characteristic == characteristic)
        let frames = Self.drain(&ride)
        #expect(frames.count == count)
        #expect(frames == expected)
        #expect(ride.nextFrame(after: .seconds(1)) == nil)
    }

    /// Looping: after the last frame comes the first again, the whole capture each time.
    @Test func loopsStartAgainAtTheFirstFrame() throws {
        let expected = try CaptureFixture.frames("bike-truncated.ftmscap", on: .indoorBikeData)
        var ride = try RecordedRide(
            characteristic: .indoorBikeData, recording: try CaptureFixture.recording("bike-truncated.ftmscap"), loops: true)
        let frames = Self.drain(&ride, limit: expected.count * 3 + 1)
        #expect(frames == expected + expected + expected + [expected[0]])
    }

    /// A bike's ride carries only Indoor Bike Data, not the Status notifications recorded
    /// beside it.
    @Test func otherCharacteristicsAreLeftOut() throws {
        let recording = try CaptureFixture.recording("bike-status.ftmscap")
        #expect(recording.contains { $0.characteristic == .fitnessMachineStatus })
        var ride = try RecordedRide(characteristic: .indoorBikeData, recording: recording)
        #expect(ride.frames.allSatisfy { $0.characteristic == .indoorBikeData })
        #expect(Self.drain(&ride) == recording.filter { $0.characteristic == .indoorBikeData }.map(\.bytes))
    }

    /// A recording with no frame on the characteristic is refused, in one line.
    @Test func noFramesOfTheKindIsAnError() throws {
        let rower = try CaptureFixture.recording("rower-viking-split.ftmscap")
        #expect(throws: SimulatorError("no indoor_bike_data (0x2ad2) notifications to ride")) {
            try RecordedRide(characteristic: .indoorBikeData, recording: rower)
        }
        #expect(throws: SimulatorError.self) { try RecordedRide(characteristic: .rowerData, recording: []) }
    }

    /// The Control Point changes nothing in a recording.
    @Test func controlPointEventsAreIgnored() throws {
        let recording = try CaptureFixture.recording("bike-pause.ftmscap")
        var plain = try RecordedRide(characteristic: .indoorBikeData, recording: recording)
        var pushed = plain
        var frames: [[UInt8]] = []
        let events: [MachineEvent] = [.targetResistance(24), .targetPower(watts: 300), .paused, .reset, .simulation(gradePercent: 8), .stopped]
        for event in events {
            pushed.apply(event)
            frames += (0..<50).compactMap { _ in pushed.nextFrame(after: .seconds(1)) }
        }
        #expect(frames == (0..<frames.count).compactMap { _ in plain.nextFrame(after: .seconds(1)) })
        #expect(frames.count == 300)
    }

    /// The recorded rate: frames over the span from first to last.
    @Test(arguments: [("bike-steady.ftmscap", Characteristic.indoorBikeData, 1.0), ("bike-no-counters.ftmscap", .indoorBikeData, 2.0),
                      ("rower-viking-split.ftmscap", .rowerData, 1.744)])
    func recordedRate(_ name: String, _ characteristic: Characteristic, _ about: Double) throws {
        let recording = try CaptureFixture.recording(name).filter { $0.characteristic == characteristic }
        let first = try #require(recording.first?.offset), last = try #require(recording.last?.offset)
        let span = last - first
        let expected = Double(recording.count - 1) / (Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18)
        let ride = try RecordedRide(characteristic: characteristic, recording: recording)
        #expect(abs(ride.recordedRate - expected) < 1e-9)
        #expect(abs(ride.recordedRate - about) < 0.005)
    }

    @Test func aSingleFrameOrOneInstantRidesAtOneHertz() throws {
        let frame = RecordedFrame(offset: .seconds(3), characteristic: .rowerData, bytes: [0])
        #expect(try RecordedRide(characteristic: .rowerData, recording: [frame]).recordedRate == 1)
        #expect(try RecordedRide(characteristic: .rowerData, recording: [frame, frame, frame]).recordedRate == 1)
    }

    /// The Nth ride of a kind goes on the Nth machine of that kind, at the recording's rate
    /// unless a rate is given; the others keep their rider.
    @Test func configurationPutsRidesOnTheNthMachineOfTheKind() throws {
        let bike = try RecordedRide(characteristic: .indoorBikeData, recording: try CaptureFixture.recording("bike-no-counters.ftmscap"))
        let rower = try RecordedRide(characteristic: .rowerData, recording: try CaptureFixture.recording("rower-viking-split.ftmscap"))
        var configuration = SimulatorConfiguration.gym(bikes: 2, rowers: 2, genericFTMS: 1, rate: 4)
        try configuration.ride(bike, onMachine: 2, of: .bike)
        try configuration.ride(rower, onMachine: 1, of: .rower, rate: 10)
        try configuration.ride(bike, onMachine: 1, of: .genericFTMS)
        let machines = configuration.machines.map { ($0.name, $0.ride?.characteristic, $0.streamRate) }
        #expect(machines.map(\.0) == ["SF-Bike-0001", "SF-Bike-0002", "SF-Rower-0001", "SF-Rower-0002", "FTMS-Bike-01"])
        #expect(machines.map(\.1) == [nil, .indoorBikeData, .rowerData, nil, .indoorBikeData])
        #expect(machines.map(\.2) == [4, bike.recordedRate, 10, 4, bike.recordedRate])
        #expect(abs(bike.recordedRate - 2) < 0.01)

        #expect(throws: SimulatorError("no rower machine number 3 to ride (there are 2)")) {
            try configuration.ride(rower, onMachine: 3, of: .rower)
        }
        #expect(throws: SimulatorError("a bike machine cannot ride rower_data notifications")) {
            try configuration.ride(rower, onMachine: 1, of: .bike)
        }
        #expect(throws: SimulatorError.self) { try configuration.ride(bike, onMachine: 0, of: .bike) }
    }
}

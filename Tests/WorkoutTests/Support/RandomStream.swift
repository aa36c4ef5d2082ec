import DeterministicRandom
import FTMS
import Workout

/// Random but reproducible inputs for property tests: samples at irregular intervals with
/// counters that advance, wrap, glitch and reset, and Status, link and tick events mixed in.
struct RandomStream {
    var random: SplitMix64
    var t = 0.0
    var distance = 0.0
    var energy = 0.0
    var elapsed = 0.0
    var strokes = 0.0
    var moving = false
    /// What this machine reports at all: some have no counters, some no power or speed.
    var counters: UInt64 = 0
    var power: UInt64 = 0
    var speed: UInt64 = 0

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
        counters = chance(60) ? 70 : 0
        power = chance(80) ? 80 : 0
        speed = chance(60) ? 60 : 0
        distance = Double(random.next(upperBound: 16_777_216 as UInt64))
        energy = Double(random.next(upperBound: 65_536 as UInt64))
        elapsed = Double(random.next(upperBound: 65_536 as UInt64))
        strokes = Double(random.next(upperBound: 65_536 as UInt64))
    }

    mutating func chance(_ percent: UInt64) -> Bool {
        random.next(upperBound: 100 as UInt64) < percent
    }

    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        Double.random(in: range, using: &random)
    }

    /// Advances time and applies one random input to `ride`.
    mutating func step(_ ride: inout Ride) {
        t += chance(3) ? uniform(5...200) : uniform(0.05...2)
        let roll = random.next(upperBound: 100 as UInt64)
        switch roll {
        case 0..<90:
            ride.sample(t, sample())
        case 90..<92 where chance(60):
            let opCodes: [StatusOpCode] = [.reset, .stoppedOrPausedByUser, .stoppedBySafetyKey, .startedOrResumedByUser, .targetPowerChanged]
            let opCode = opCodes[Int(random.next(upperBound: UInt64(opCodes.count)))]
            ride.status(t, opCode, opCode == .stoppedOrPausedByUser ? [Int32(random.next(upperBound: 3 as UInt64))] : [])
        case 92..<93:
            ride.disconnect(t)
        case 93..<95:
            ride.connect(t)
        default:
            ride.tick(t)
        }
    }

    mutating func sample() -> [DataField: Double] {
        if chance(moving ? 2 : 8) { moving.toggle() }
        if moving {
            distance += uniform(0...12)
            energy += uniform(0...0.3)
            strokes += uniform(0...0.6)
        }
        elapsed += 1
        if chance(1) && chance(50) { (distance, energy, elapsed, strokes) = (0, 0, 0, 0) }
        let glitch = chance(2)
        var fields: [DataField: Double] = [:]
        if chance(90) { fields[.instantaneousCadence] = moving ? uniform(20...120) : 0 }
        if chance(power) { fields[.instantaneousPower] = moving ? uniform(-20...600) : 0 }
        if chance(speed) { fields[.instantaneousSpeed] = moving ? uniform(0...50) : 0 }
        if chance(50) { fields[.heartRate] = uniform(0...200) }
        if chance(30) { fields[.strokeRate] = moving ? uniform(10...40) : 0 }
        if chance(counters) { fields[.totalDistance] = glitch ? 0 : distance.truncatingRemainder(dividingBy: 16_777_216).rounded(.down) }
        if chance(counters) { fields[.totalEnergy] = glitch ? 0 : energy.truncatingRemainder(dividingBy: 65_535).rounded(.down) }
        if chance(60) { fields[.elapsedTime] = glitch ? 0 : elapsed.truncatingRemainder(dividingBy: 65_536) }
        if chance(30) { fields[.strokeCount] = strokes.truncatingRemainder(dividingBy: 65_536).rounded(.down) }
        return fields
    }
}

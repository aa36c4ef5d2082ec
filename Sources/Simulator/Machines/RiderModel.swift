import Clocks
import DeterministicRandom
public import FTMS

#if canImport(Glibc)
import Glibc
#endif

/// A rider on a bike or a rower, turned into FTMS data frames.
///
/// Deterministic: the same seed, frame interval and Control Point changes give the same
/// bytes, so a test can compute what a client must receive. The physics is plausible rather
/// than exact: cadence or stroke rate wander, harder resistance means more power (or, with a
/// power target, the machine holds that power), and distance and energy integrate what was
/// shown, energy at contract §5's 25 % efficiency.
public struct RiderModel: MachineDataSource {
    public let type: MachineType
    private var random: SplitMix64
    /// Revolutions or strokes per minute.
    private var rate: Double
    private var resistance: Double
    private var targetPower: Int?
    private var grade: Double = 0
    private var moving = true
    private var elapsed: Double = 0
    private var distance: Double = 0
    private var energy: Double = 0
    private var strokes: Double = 0

    static let defaultResistance = 10.0

    public init(type: MachineType, seed: UInt64) {
        self.type = type
        random = SplitMix64(seed: seed)
        rate = type == .bike ? 80 : 24
        resistance = Self.defaultResistance
    }

    public var characteristic: Characteristic { type.dataCharacteristic }

    public mutating func apply(_ event: MachineEvent) {
        switch event {
        case .targetResistance(let level):
            resistance = level
            targetPower = nil
        case .targetPower(let watts): targetPower = watts
        case .simulation(let gradePercent): grade = gradePercent
        case .startedOrResumed: moving = true
        case .stopped, .paused: moving = false
        case .reset:
            elapsed = 0
            distance = 0
            energy = 0
            strokes = 0
            resistance = Self.defaultResistance
            targetPower = nil
            grade = 0
        }
    }

    public mutating func nextFrame(after interval: Duration) -> [UInt8]? {
        let seconds = interval.seconds
        let bounds: ClosedRange<Double> = type == .bike ? 60...100 : 18...32
        let step = type == .bike ? 2.0 : 0.5
        rate = min(max(rate + random.uniform(-step...step), bounds.lowerBound), bounds.upperBound)
        let shownRate = moving ? rate : 0
        let power = moving ? self.power(at: shownRate) : 0
        if moving { elapsed += seconds }
        energy += power * seconds / 4184 / 0.25
        var values = FieldValues()
        switch type {
        case .bike:
            let speed = moving ? shownRate * 0.36 / (1 + max(grade, 0) / 10) : 0
            distance += speed / 3.6 * seconds
            values.set(.instantaneousSpeed, value: speed)
            values.set(.instantaneousCadence, value: shownRate)
            values.set(.totalDistance, value: distance.rounded(.down))
            values.set(.resistanceLevel, value: resistance)
            values.set(.instantaneousPower, value: power)
        case .rower:
            // The ergometer's own relation: watts = 2.8 × (metres per second)³.
            let velocity = cbrt(power / 2.8)
            distance += velocity * seconds
            strokes += shownRate / 60 * seconds
            values.set(.strokeRate, value: shownRate)
            values.set(.strokeCount, value: strokes.rounded(.down))
            values.set(.totalDistance, value: distance.rounded(.down))
            values.set(.instantaneousPace, value: velocity > 0 ? 500 / velocity : 0)
            values.set(.instantaneousPower, value: power)
            values.set(.resistanceLevel, value: resistance)
        }
        // Below the energy fields' "not available" values (0xFFFF, 0xFF): a rider always has a figure.
        values.set(.totalEnergy, value: min(energy.rounded(.down), 65_534))
        values.set(.energyPerHour, value: min(power * 3600 / 4184 / 0.25, 65_534))
        values.set(.energyPerMinute, value: min(power * 60 / 4184 / 0.25, 254))
        values.set(.elapsedTime, value: elapsed.rounded(.down))
        return DataRecord(kind: type.dataKind, values: values).encoded()
    }

    /// Watts for a cadence or stroke rate at the current resistance, or the target's watts
    /// with a little noise when a power target holds (ERG mode).
    private mutating func power(at rate: Double) -> Double {
        if let targetPower { return max(0, Double(targetPower) + random.uniform(-3...3)) }
        switch type {
        case .bike: return rate * (0.5 + 0.1 * resistance) * (1 + max(grade, 0) / 10)
        case .rower: return rate * (3.0 + 0.25 * resistance)
        }
    }
}

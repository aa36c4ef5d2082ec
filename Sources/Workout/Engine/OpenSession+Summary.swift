import FTMS

extension OpenSession {
    /// The summary of this session, ended for `reason`. Call after the last hold is closed.
    /// `offset` dates it when it never saw a true wall clock (see ``startDate(offset:)``).
    func summary(machine: MachineIdentity, reason: EndReason, rules: ResolvedRules, offset: Int64) -> SessionSummary {
        let startedAt = startDate(offset: offset).wholeSeconds
        let elapsed = Nanoseconds.roundedSeconds(Nanoseconds.subtract(lastActiveEnd, self.startedAt))
        let duration = min(Nanoseconds.roundedSeconds(moving), elapsed)
        let (distanceMethod, distance) = TotalMethod.choose(
            counterSeen: counters.distance.seen, counter: counters.distance.total, integrated: integrated.metres
        )
        let (energyMethod, energy) = TotalMethod.choose(
            counterSeen: counters.energy.seen, counter: counters.energy.total,
            integrated: integrated.joules / rules.joulesPerKilocalorie
        )
        let movingSeconds = Nanoseconds.seconds(moving)
        var averageSpeed = averages.speed.mean
        if averageSpeed == nil, distance > 0, movingSeconds > 0 {
            averageSpeed = Double(distance) / movingSeconds * 3.6
        }
        let isRower = machine.type == .rower
        let detail = SessionDetail(
            machine: machine,
            elapsed: elapsed,
            paused: elapsed - duration,
            averagePower: Rounding.tenths(averages.power.mean),
            maximumPower: averages.maxPower.map(Int.init),
            averageCadence: Rounding.tenths(averages.cadence.mean),
            averageSpeed: Rounding.hundredths(averageSpeed),
            averageHeartRate: Rounding.tenths(averages.heartRate.mean),
            maximumHeartRate: averages.maxHeartRate.map(Int.init),
            averageStrokeRate: Rounding.tenths(averages.strokeRate.mean),
            strokeCount: counters.strokeCount.seen ? Int(counters.strokeCount.total) : nil,
            averagePace: isRower && distance > 0 && movingSeconds > 0
                ? Rounding.tenths(500 * movingSeconds / Double(distance)) : nil,
            energyMethod: energyMethod,
            distanceMethod: distanceMethod,
            sampleCount: sampleCount,
            endReason: reason,
            clockUnsynchronised: anchor == nil
        )
        return SessionSummary(
            sessionID: id,
            startedAt: startedAt,
            endedAt: startedAt.adding(seconds: elapsed),
            duration: duration,
            totalEnergy: energy,
            totalDistance: distance,
            detail: detail
        )
    }
}

import TestSupport
import Store
import Workout

/// Summaries with known figures, for known-answer stats and queue-order tests.
enum Sessions {
    static let bike = MachineIdentity(name: "SF-Bike-0001", address: "C0:11:22:33:44:01", model: "SF-Bike-M1", type: .bike)
    /// 2026-11-21T08:00:00Z.
    static let origin = UTCTime(secondsSince1970: 1_795_248_000)

    /// A 30-minute ride starting `offset` seconds after ``origin``.
    static func summary(_ number: Int, offset: Int, energy: Int = 100, distance: Int = 10_000, duration: Int = 1_800) -> SessionSummary {
        let start = origin.adding(seconds: offset)
        let detail = SessionDetail(
            machine: bike, elapsed: duration, paused: 0, averagePower: 150, energyMethod: .counter,
            distanceMethod: .counter, sampleCount: duration, endReason: .stopped)
        return SessionSummary(
            sessionID: id(number), startedAt: start, endedAt: start.adding(seconds: duration), duration: duration,
            totalEnergy: energy, totalDistance: distance, detail: detail)
    }

    /// A deterministic UUID-shaped id whose last digits are `number`.
    static func id(_ number: Int) -> String {
        let digits = String(number)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits
    }
}

extension ManualClock {
    /// A clock at ``Sessions/origin``.
    static func atOrigin() -> ManualClock { ManualClock(wall: Sessions.origin) }
}

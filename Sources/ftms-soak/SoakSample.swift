import Clocks
import BlueZ
import DBus
import Foundation

/// One reading of the process during the soak.
struct SoakSample {
    var elapsed: Duration
    var residentKiB: Int
    var openDescriptors: Int
    var outstandingCalls: Int
    var pendingWaits: Int
    var notifications: Int
    var readies: Int

    static func take(at elapsed: Duration, connection: DBusConnection, client: BlueZClient, counters: SoakCounters) async -> SoakSample {
        SoakSample(
            elapsed: elapsed, residentKiB: residentKiB(), openDescriptors: openDescriptors(),
            outstandingCalls: await connection.outstandingCalls(), pendingWaits: await client.pendingWaits,
            notifications: await counters.notifications, readies: await counters.readies)
    }

    static func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }
}

/// Growth judged after the warm-up quarter: memory may wobble with the allocator, but must
/// not climb; descriptors and calls must come back to where they were.
struct SoakVerdict {
    let samples: [SoakSample]
    let afterStop: SoakSample
    let machines: Int
    /// Links dropped on purpose, and Control Point commands that succeeded / did not.
    var drops = 0
    var commands = (succeeded: 0, failed: 0)
    /// Resident memory may grow this much past warm-up (allocator arenas, BlueZ cache churn).
    static let memorySlackKiB = 1_536

    var steady: ArraySlice<SoakSample> { samples.dropFirst(samples.count / 4) }

    var failures: [String] {
        guard let first = steady.first, let last = steady.last else { return ["too few samples"] }
        var failures: [String] = []
        let memoryGrowth = last.residentKiB - first.residentKiB
        if memoryGrowth > Self.memorySlackKiB { failures.append("resident memory grew \(memoryGrowth) KiB after warm-up") }
        let descriptorRange = (steady.map(\.openDescriptors).min() ?? 0)...(steady.map(\.openDescriptors).max() ?? 0)
        if descriptorRange.count > 3 { failures.append("open descriptors ranged \(descriptorRange)") }
        if afterStop.outstandingCalls != 0 { failures.append("\(afterStop.outstandingCalls) calls still awaiting replies after stop") }
        if afterStop.pendingWaits != 0 { failures.append("\(afterStop.pendingWaits) waiters or listeners left after stop") }
        if steady.map(\.pendingWaits).max() ?? 0 > machines * 6 { failures.append("waiters/listeners climbed to \(steady.map(\.pendingWaits).max() ?? 0)") }
        if last.notifications <= first.notifications { failures.append("no notifications flowed") }
        if last.readies <= machines { failures.append("no link was ever re-established (readies \(last.readies))") }
        return failures
    }

    var passed: Bool { failures.isEmpty }

    var report: String {
        var lines = ["    t(s)  rss(KiB)  fds  calls  waits  notifications  readies"]
        for sample in samples + [afterStop] {
            lines.append(String(format: "%8.1f  %8d  %3d  %5d  %5d  %13d  %7d",
                                sample.elapsed.seconds,
                                sample.residentKiB, sample.openDescriptors, sample.outstandingCalls, sample.pendingWaits,
                                sample.notifications, sample.readies))
        }
        lines.append("links dropped \(drops), re-established \((samples.last?.readies ?? 0) - machines); commands \(commands.succeeded) succeeded, \(commands.failed) failed (a link being re-made)")
        lines.append(passed ? "soak: passed" : "soak: FAILED: " + failures.joined(separator: "; "))
        return lines.joined(separator: "\n")
    }
}

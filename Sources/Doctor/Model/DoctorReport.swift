/// Everything one `ftms-bridge doctor` run found, in the order it is printed.
package struct DoctorReport: Sendable, Hashable {
    /// The `ftms-bridge` version that ran the checks.
    package var version: String
    package var checks: [CheckResult]

    package init(version: String, checks: [CheckResult]) {
        self.version = version
        self.checks = checks
    }

    /// How many checks came out each way, every status present (zero included).
    package var summary: [CheckStatus: Int] {
        var counts = Dictionary(uniqueKeysWithValues: CheckStatus.allCases.map { ($0, 0) })
        for check in checks { counts[check.status, default: 0] += 1 }
        return counts
    }

    /// The process exit status: 0 when nothing failed, 1 otherwise. Warnings alone never
    /// fail the run, so a script can gate on "doctor passes" for a box that works.
    package var exitStatus: Int32 {
        checks.contains { $0.status == .failed } ? 1 : 0
    }

    package func check(_ id: String) -> CheckResult? {
        checks.first { $0.id == id }
    }
}

extension DoctorReport {
    /// The readable report: one line per check, `[ OK ]`-style tag first so a failure stands
    /// out in a terminal or a pasted support ticket, then what to do, indented, under it.
    /// ASCII only: the report often goes through journald, serial consoles and e-mail.
    package var text: String {
        var lines = ["ftms-bridge doctor \(version)"]
        for check in checks {
            lines.append("\(Self.tag(check.status)) \(check.title): \(check.detail)")
            if let hint = check.hint { lines.append("       -> \(hint)") }
        }
        let counts = summary
        lines.append("")
        lines.append(CheckStatus.allCases.map { status in
            let count = counts[status] ?? 0
            return "\(count) " + (status == .warning && count != 1 ? "warnings" : status.rawValue)
        }.joined(separator: ", "))
        return lines.joined(separator: "\n")
    }

    static func tag(_ status: CheckStatus) -> String {
        switch status {
        case .ok: "[ OK ]"
        case .warning: "[WARN]"
        case .failed: "[FAIL]"
        case .skipped: "[SKIP]"
        }
    }
}

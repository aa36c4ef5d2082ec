package import JSON
import Foundation

/// One line of the doctor's report: what was looked at, how it came out, and why.
package struct CheckResult: Sendable, Hashable {
    /// Stable machine name (`dbus`, `adapter.hci0`): what scripts switch on.
    package var id: String
    /// What an operator reads (`System bus`, `Adapter hci0`).
    package var title: String
    package var status: CheckStatus
    /// One line saying what was found, in words an operator can act on.
    package var detail: String
    /// What to do about a warning or failure, one line; `nil` when there is nothing to do.
    package var hint: String?
    /// The facts behind the detail, for `--json`.
    package var data: [String: JSONValue]

    package init(id: String, title: String, status: CheckStatus, detail: String, hint: String? = nil, data: [String: JSONValue] = [:]) {
        self.id = id
        self.title = title
        self.status = status
        self.detail = Self.oneLine(detail)
        self.hint = hint.map(Self.oneLine)
        self.data = data
    }

    /// A check that could not run because `reason` (an earlier check failed, say).
    package static func skipped(id: String, title: String, because reason: String) -> CheckResult {
        CheckResult(id: id, title: title, status: .skipped, detail: reason)
    }

    /// Errors from libraries may span lines; a report line never does.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "; ")
    }
}

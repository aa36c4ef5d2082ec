import JSON
import DaemonConfig
import Foundation
import Publish

/// Check 5c: the daemon's metrics and control sockets: present, a socket, the configured mode
/// and group, and answering as the protocol says (the metrics socket greets every reader with a
/// `hello` line; the control socket answers `{"command":"status"}`).
///
/// An absent socket is a warning, not a failure: the doctor is also run when the daemon is
/// stopped. A socket file nobody listens on is a failure: a daemon died without cleaning up.
struct SocketCheck: Sendable {
    enum Kind: Sendable {
        case metrics
        case control

        var id: String { self == .metrics ? "metrics-socket" : "control-socket" }
        var title: String { self == .metrics ? "Metrics socket" : "Control socket" }
        /// What the doctor sends first: nothing to the metrics socket, which speaks first.
        var request: String? { self == .metrics ? nil : #"{"id":"doctor","command":"status"}"# }
    }

    var kind: Kind
    var settings: DaemonConfig.SocketSettings
    var timeout: Duration

    func run() async -> CheckResult {
        let path = settings.path
        var data: [String: JSONValue] = ["path": .string(path), "configured_mode": .string(FileFacts.octal(settings.mode))]
        let facts: FileFacts
        switch FileFacts.of(path) {
        case .failure(.missing):
            data["present"] = false
            return result(.warning, "\(path) is not there: the daemon is not running, or uses another path",
                hint: "systemctl status ftms-bridge", data)
        case .failure(.unreadable(let reason)):
            data["present"] = .null
            return result(.warning, "cannot look at \(path): \(reason)", hint: "run the doctor as root or as the service user", data)
        case .success(let found):
            facts = found
        }
        data["present"] = true
        data.merge(facts.data) { _, new in new }
        guard facts.kind == .socket else {
            return result(.failed, "\(path) is a \(facts.kind.rawValue), not a socket", hint: "move it aside and restart the daemon", data)
        }
        var notes: [String] = []
        if facts.mode & 0o777 != settings.mode & 0o777 {
            notes.append("mode \(facts.modeText), configured \(FileFacts.octal(settings.mode))")
        }
        if !settings.group.isEmpty, facts.group != settings.group {
            notes.append("group \(facts.group), configured \(settings.group)")
        }
        data["mode_matches"] = .bool(facts.mode & 0o777 == settings.mode & 0o777)
        let outcome = await UnixSocketProbe.probe(path: path, request: kind.request, timeout: timeout)
        return judged(outcome, facts: facts, notes: notes, data: data)
    }

    private func judged(_ outcome: UnixSocketProbe.Outcome, facts: FileFacts, notes: [String], data: [String: JSONValue]) -> CheckResult {
        var data = data
        let path = settings.path
        let mismatch = notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))"
        switch outcome {
        case .refused(let error) where error == EACCES:
            data["answer"] = "permission denied"
            return result(.warning, "\(path): permission denied for this user\(mismatch)",
                hint: "run the doctor as root, or as a member of \(facts.group)", data)
        case .refused(let error):
            data["answer"] = .string(Errno.describe(error))
            return result(.failed, "\(path) is there but nobody answers: \(Errno.describe(error))\(mismatch)",
                hint: "a stale socket from a daemon that died: systemctl restart ftms-bridge", data)
        case .silent:
            data["answer"] = "nothing"
            let expected = kind == .metrics ? "sent no hello" : "did not answer status"
            return result(.failed, "\(path) accepted a connection but \(expected) within \(Seconds.text(timeout))\(mismatch)",
                hint: "the daemon may be stuck: journalctl -u ftms-bridge; systemctl restart ftms-bridge", data)
        case .answered(let line):
            guard let answer = kind == .metrics ? Self.hello(line) : Self.status(line) else {
                data["answer"] = .string(String(line.prefix(80)))
                return result(.failed, "\(path) answered, but not in the \(kind == .metrics ? "metrics" : "control") protocol\(mismatch)",
                    hint: "is another program listening on this path?", data)
            }
            data.merge(answer.data) { _, new in new }
            let status: CheckStatus = notes.isEmpty && answer.fine ? .ok : .warning
            let hint = !answer.fine ? "see journalctl -u ftms-bridge"
                : notes.isEmpty ? nil : "the daemon sets mode and group when it binds: restart it, or fix the config"
            return result(status, "\(path): mode \(facts.modeText), \(answer.words)\(mismatch)", hint: hint, data)
        }
    }

    /// What a well-formed first line said.
    struct Answer {
        var words: String
        var fine: Bool
        var data: [String: JSONValue]
    }

    /// The `hello` envelope's `seq` and `version`, read by Publish's envelope reader (the one
    /// every reader of docs/metrics-socket.md uses), or `nil` when the line is not one.
    static func hello(_ line: String) -> Answer? {
        guard let hello = try? MetricsMessage(line: Array(line.utf8)), hello.envelope.type == .hello else { return nil }
        let seq = Int(clamping: hello.envelope.seq)
        return Answer(
            words: "answers with hello (version \(hello.version), seq \(seq))", fine: true,
            data: ["answer": "hello", "seq": .integer(Int64(seq)), "protocol_version": .string(hello.version)])
    }

    /// The answer to `status` (docs/control-socket.md): `{"ok": true, "result": {…}}`, or an
    /// error line; `nil` when the line is not the control protocol at all.
    static func status(_ line: String) -> Answer? {
        guard let object = jsonObject(line), let ok = object["ok"]?.bool else { return nil }
        guard ok, let result = object["result"]?.object else {
            let error = object["error"]?.string ?? "no reason given"
            return Answer(words: "answers status with an error: \(error)", fine: false, data: ["answer": "error", "error": .string(error)])
        }
        let version = result["version"]?.string
        let uptime = result["uptime_s"]?.integer
        let machines = result["machines"]?.array?.count
        let facts = [version.map { "daemon \($0)" }, uptime.map { "up \(DatabaseCheck.ageText($0))" }, machines.map { "\($0) machine\($0 == 1 ? "" : "s")" }]
            .compactMap { $0 }
        return Answer(
            words: "answers status" + (facts.isEmpty ? "" : " (\(facts.joined(separator: ", ")))"), fine: true,
            data: ["answer": "status", "daemon_version": .optional(version), "uptime_s": .optional(uptime.map(Int.init)), "machines": .optional(machines)])
    }

    private static func jsonObject(_ line: String) -> JSONObject? {
        (try? JSONReader.read(line))?.object
    }

    private func result(_ status: CheckStatus, _ detail: String, hint: String?, _ data: [String: JSONValue]) -> CheckResult {
        CheckResult(id: kind.id, title: kind.title, status: status, detail: detail, hint: hint, data: data)
    }
}

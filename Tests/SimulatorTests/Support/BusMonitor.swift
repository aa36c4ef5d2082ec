import TestSupport
import Foundation

/// `dbus-monitor` on the private bus: every message in the order the daemon routed it, which
/// is the order its sender sent it. The only way to see a reply's place among signals: inside
/// a client, a reply resumes its caller while signals queue in a stream.
final class BusMonitor: @unchecked Sendable {
    private let child: ChildProcess

    /// One message: its header line (`method return … sender=:1.0 -> destination=:1.5 …`)
    /// and its indented body.
    struct Message: Sendable {
        let header: String
        let body: String

        var isReturn: Bool { header.hasPrefix("method return") }
        var isSignal: Bool { header.hasPrefix("signal") }
        /// A reply from a peer (not the bus daemon, which answers Hello and AddMatch).
        func isReply(to destination: String) -> Bool {
            isReturn && header.contains("-> destination=\(destination) ") && !header.contains("sender=org.freedesktop.DBus ")
        }
        /// A PropertiesChanged carrying `name` with a value printed as `value` (`boolean true`).
        func changes(_ name: String, to value: String) -> Bool {
            guard isSignal, header.contains("member=PropertiesChanged") else { return false }
            let lines = body.split(separator: "\n")
            guard let index = lines.firstIndex(where: { $0.hasSuffix("string \"\(name)\"") }), index + 1 < lines.count else { return false }
            return lines[index + 1].contains(value)
        }
    }

    init(address: String) async throws {
        child = try ChildProcess("/usr/bin/dbus-monitor", ["--address", address])
        // It reports becoming a monitor by losing its own name.
        let child = self.child
        try await waitUntil("dbus-monitor to start", timeout: .seconds(5)) { child.stdout.contains("member=NameLost") }
    }

    var messages: [Message] {
        var result: [Message] = []
        for line in child.stdout.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(" ") || line.hasPrefix("\t") || line.hasPrefix("\"") || line.isEmpty {
                if let last = result.popLast() { result.append(Message(header: last.header, body: last.body + line + "\n")) }
            } else {
                result.append(Message(header: String(line), body: ""))
            }
        }
        return result
    }

    /// Waits until `condition` holds for the messages seen; returns them (what was seen when
    /// the limit, a hang detector of a minute, ran out).
    func wait(timeout: Duration = .seconds(60), until condition: ([Message]) -> Bool) async throws -> [Message] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let seen = messages
            if condition(seen) || ContinuousClock.now > deadline { return seen }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    func stop() { child.stop() }
}

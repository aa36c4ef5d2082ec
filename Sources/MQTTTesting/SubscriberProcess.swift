import TestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real `mosquitto_sub` on a ``PrivateBroker``, its output in a file. Its login comes from a
/// config file (`$XDG_CONFIG_HOME/mosquitto_sub`), never its command line. ``pause()``
/// (SIGSTOP) makes it a subscriber that never reads.
public final class SubscriberProcess: @unchecked Sendable {
    public let outputPath: String
    private var pid: pid_t = 0

    init(broker: PrivateBroker, filter: String, clientID: String) throws {
        let configDirectory = broker.directoryPath + "/sub-\(clientID)"
        try FileManager.default.createDirectory(atPath: configDirectory, withIntermediateDirectories: true)
        let options = "-h 127.0.0.1\n-p \(broker.port)\n-u \(broker.username)\n-P \(broker.password)\n"
        guard FileManager.default.createFile(atPath: configDirectory + "/mosquitto_sub", contents: Data(options.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw BrokerStartError(description: "cannot write \(configDirectory)/mosquitto_sub")
        }
        outputPath = configDirectory + "/output"
        do {
            pid = try spawnChild(
                ["/usr/bin/mosquitto_sub", "-i", clientID, "-t", filter, "-v"], stdout: .file(outputPath),
                extraEnvironment: ["XDG_CONFIG_HOME": configDirectory])
        } catch {
            throw BrokerStartError(description: "\(error)")
        }
    }

    /// What it printed so far (`topic payload` lines).
    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// SIGSTOP: it stays connected and stops reading its socket.
    public func pause() {
        if pid > 0 { kill(pid, SIGSTOP) }
    }

    /// SIGKILL; reaped on a thread of its own.
    public func stop() {
        guard pid > 0 else { return }
        ChildExit.killInBackground(pid)
        pid = 0
    }

    deinit { stop() }
}

extension PrivateBroker {
    /// Starts `mosquitto_sub` on `filter` as client `clientID`.
    public func startSubscriber(filter: String, clientID: String = "stuck-reader") throws -> SubscriberProcess {
        try SubscriberProcess(broker: self, filter: filter, clientID: clientID)
    }

    /// The broker's log so far (connections, refusals).
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
}

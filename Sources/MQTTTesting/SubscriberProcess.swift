import BlueZTesting
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
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = ["/usr/bin/mosquitto_sub", "-i", clientID, "-t", filter, "-v"]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = configDirectory
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        let spawned = spawnWithSignalsUnblocked(&pid, arguments[0], &actions, argv, envp)
        guard spawned == 0 else { throw BrokerStartError(description: "cannot start mosquitto_sub (error \(spawned))") }
    }

    /// What it printed so far (`topic payload` lines).
    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// SIGSTOP: it stays connected and stops reading its socket.
    public func pause() {
        if pid > 0 { kill(pid, SIGSTOP) }
    }

    public func stop() {
        guard pid > 0 else { return }
        ChildExit.kill(pid)
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

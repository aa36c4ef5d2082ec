import TestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real `mosquitto` (Debian's package), private to one test: a free loopback port, a
/// password file (no anonymous clients, as a gym's broker should be), persistence if asked, and
/// optionally a second, TLS listener with a CA and certificate made for it by `openssl`.
/// The way ``PrivateBus`` is a private dbus-daemon.
///
/// Everything that waits (for `mosquitto_passwd` and `openssl` to finish, for the broker to
/// listen, for it to exit) waits without holding a thread of the cooperative pool.
public final class PrivateBroker: @unchecked Sendable {
    public let directoryPath: String
    private let directory: TemporaryDirectory
    public private(set) var port: Int
    public let username: String
    public let password: String
    /// The TLS listener's port and the CA that signed its certificate (for 127.0.0.1 and
    /// localhost), when made with `tls: true`.
    public private(set) var tlsPort: Int?
    public let caFile: String?
    private var pid: pid_t = 0

    public var url: String { "mqtt://127.0.0.1:\(port)" }
    public var tlsURL: String? { tlsPort.map { "mqtts://localhost:\($0)" } }
    public var logPath: String { directoryPath + "/mosquitto.log" }
    /// A password file (mode 0600) holding ``password``, as the daemon's config points at one.
    public var passwordFile: String { directoryPath + "/gateway-password" }

    /// `persistent`: the broker saves its state (retained messages, persistent sessions and
    /// their queued messages) when it shuts down and loads it when it starts again.
    /// `queueQoS0`: a persistent session that is away also keeps the QoS 0 messages it would
    /// have got (mosquitto's `queue_qos0_messages`), so a test can count what was published
    /// while its subscriber could not be there.
    /// `acl`: the text of a mosquitto ACL file (`user gateway` / `topic read gym/#`); nil grants
    /// every client everything.
    public init(
        tls: Bool = false, persistent: Bool = false, queueQoS0: Bool = false, username: String = "gateway", password: String? = nil,
        acl: String? = nil
    ) async throws {
        directory = try TemporaryDirectory(prefix: "ftms-broker")
        directoryPath = directory.path
        self.username = username
        self.password = password ?? "pw-\(UUID().uuidString.prefix(12))"
        port = try Self.freePort()
        tlsPort = tls ? try Self.freePort() : nil
        caFile = tls ? directoryPath + "/ca.crt" : nil

        // mosquitto_passwd -U hashes a plain file in place: the password never goes on a
        // command line.
        let passwords = directoryPath + "/passwd"
        try Self.writeSecret("\(username):\(self.password)\n", to: passwords)
        try await Self.run(["/usr/bin/mosquitto_passwd", "-U", passwords])
        try Self.writeSecret(self.password + "\n", to: passwordFile)
        if tls { try await makeCertificates() }
        if let acl { try acl.write(toFile: directoryPath + "/acl", atomically: true, encoding: .utf8) }

        func writeConfig(port: Int, tlsPort: Int?) throws {
            var config = """
                # A private broker for one test (MQTTTesting.PrivateBroker).
                persistence \(persistent)
                queue_qos0_messages \(queueQoS0)
                persistence_location \(directoryPath)/
                log_dest file \(logPath)
                log_type error
                log_type warning
                log_type notice
                log_type information
                connection_messages true
                allow_anonymous false
                password_file \(passwords)
                listener \(port) 127.0.0.1

                """
            if acl != nil { config += "acl_file \(directoryPath)/acl\n" }
            if let tlsPort {
                config += """
                    listener \(tlsPort) 127.0.0.1
                    cafile \(directoryPath)/ca.crt
                    certfile \(directoryPath)/server.crt
                    keyfile \(directoryPath)/server.key

                    """
            }
            // Started as root, mosquitto drops to the `mosquitto` user and cannot read our 0600
            // files; naming the current user keeps it as whoever runs the test.
            if geteuid() == 0 { config = "user root\n" + config }
            try config.write(toFile: directoryPath + "/mosquitto.conf", atomically: true, encoding: .utf8)
        }
        // A port found free can be taken before mosquitto binds it (another test's connection
        // is given it as its own ephemeral port): then the broker starts again on new ports.
        for attempt in 1...5 {
            try writeConfig(port: port, tlsPort: tlsPort)
            do {
                try await spawn()
                return
            } catch let error as BrokerStartError where attempt < 5 && error.description.contains("Address already in use") {
                port = try Self.freePort()
                tlsPort = tls ? try Self.freePort() : nil
            }
        }
    }

    /// The broker goes away and comes back on the same ports, as when an operator restarts
    /// it: every client loses its connection; retained messages survive only if `persistent`.
    public func restart() async throws {
        await terminate(signal: SIGTERM)
        try await spawn()
    }

    /// Shuts the broker down as an operator's `systemctl stop` would (SIGTERM: a persistent
    /// broker saves its state), for a test to start again with ``start()``.
    public func shutDown() async {
        await terminate(signal: SIGTERM)
    }

    /// Stops the broker as a crash would (SIGKILL), for a test to start again with ``start()``.
    public func kill() async {
        await terminate(signal: SIGKILL)
    }

    /// Starts a broker stopped with ``kill()`` or ``shutDown()``.
    public func start() async throws {
        guard pid == 0 else { return }
        try await spawn()
    }

    /// Stops the broker (TERM now; KILL after a second and the reaping on a thread of their
    /// own) and removes its files.
    public func stop() {
        if pid > 0 {
            ChildExit.terminateInBackground(pid, grace: .seconds(1))
            pid = 0
        }
        try? FileManager.default.removeItem(atPath: directoryPath)
    }

    deinit { stop() }

    private func spawn() async throws {
        do {
            pid = try spawnChild(["/usr/sbin/mosquitto", "-c", directoryPath + "/mosquitto.conf"])
        } catch {
            throw BrokerStartError(description: "\(error)")
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !(Self.accepts(port) && (tlsPort.map(Self.accepts) ?? true)) {
            if ChildExit.poll(pid) != nil {
                pid = 0
                let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                throw BrokerStartError(description: "mosquitto exited at start: \(log.split(separator: "\n").suffix(3).joined(separator: " | "))")
            }
            guard ContinuousClock.now < deadline else { throw BrokerStartError(description: "mosquitto did not listen on 127.0.0.1:\(port)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    private func terminate(signal: Int32) async {
        guard pid > 0 else { return }
        let old = pid
        pid = 0
        await ChildExit.terminate(old, signal: signal, grace: .seconds(1))
    }

    /// A CA and a server certificate for 127.0.0.1 and localhost, P-256 keys (fast to make).
    private func makeCertificates() async throws {
        let dir = directoryPath
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: dir + "/san.ext", atomically: true, encoding: .utf8)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await Self.run(["/usr/bin/openssl", "req", "-x509"] + ec + ["-keyout", dir + "/ca.key", "-out", dir + "/ca.crt", "-days", "2", "-subj", "/CN=ftms-bridge test CA"])
        try await Self.run(["/usr/bin/openssl", "req"] + ec + ["-keyout", dir + "/server.key", "-out", dir + "/server.csr", "-subj", "/CN=localhost"])
        try await Self.run([
            "/usr/bin/openssl", "x509", "-req", "-in", dir + "/server.csr", "-CA", dir + "/ca.crt", "-CAkey", dir + "/ca.key",
            "-CAcreateserial", "-out", dir + "/server.crt", "-days", "2", "-extfile", dir + "/san.ext",
        ])
    }

    /// A CA that did not sign the broker's certificate, for the bad-certificate test.
    public func makeUnrelatedCA() async throws -> String {
        let path = directoryPath + "/other-ca.crt"
        try await Self.run([
            "/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", directoryPath + "/other-ca.key", "-out", path, "-days", "2", "-subj", "/CN=someone else's CA",
        ])
        return path
    }

    private static func writeSecret(_ text: String, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw BrokerStartError(description: "cannot write \(path)")
        }
        guard chmod(path, 0o600) == 0 else { throw BrokerStartError(description: "cannot chmod \(path)") }
    }

    /// Runs a tool to completion (``runProgram(_:)``, on a thread of its own); throws unless
    /// it exits 0.
    private static func run(_ arguments: [String]) async throws {
        let status: Int32
        do {
            status = try await runProgram(arguments).status
        } catch {
            throw BrokerStartError(description: "\(error)")
        }
        guard status == 0 else { throw BrokerStartError(description: "\(arguments[0]) \(arguments[1]) failed (status \(status))") }
    }

    /// A loopback port that is free now, below the kernel's ephemeral range.
    ///
    /// Outgoing connections take their source ports from the ephemeral range, this test's own
    /// client's attempts on the broker's port included (a TCP connect to a port in that range can
    /// even be handed the same port and connect to itself). While the broker is down, such a
    /// socket on its port keeps it from listening there again ("Address already in use"). Below
    /// the range only an explicit bind takes a port.
    static func freePort() throws -> Int {
        let ephemeralLow = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } } ?? 32_768
        let low = 10_000
        guard ephemeralLow > low + 1_000 else { throw BrokerStartError(description: "no ports below the ephemeral range (it starts at \(ephemeralLow))") }
        for _ in 0..<500 {
            let candidate = Int.random(in: low..<ephemeralLow)
            if bindable(candidate) { return candidate }
        }
        throw BrokerStartError(description: "cannot find a free loopback port below \(ephemeralLow)")
    }

    private static func bindable(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return LoopbackAddress.with(port: UInt16(port)) { bind(descriptor, $0, $1.pointee) }.result == 0
    }

    private static func accepts(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return LoopbackAddress.with(port: UInt16(port)) { connect(descriptor, $0, $1.pointee) }.result == 0
    }
}

public struct BrokerStartError: Error, CustomStringConvertible {
    public let description: String
}

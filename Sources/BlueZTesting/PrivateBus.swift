import Foundation
import TestSupport
import LocalSocket
import ProcessOutput

#if canImport(Glibc)
import Glibc
#endif

/// A real `dbus-daemon` with a system-bus-like configuration, private to one test.
///
/// Its socket is made and listening before the daemon starts, and handed to it as systemd's
/// `dbus.socket` hands it to the system bus (`<listen>systemd:</listen>`, `LISTEN_FDS`): a
/// connection made before the daemon is up waits in the backlog instead of being refused, so
/// nothing waits here for the daemon to start, and no thread is held meanwhile.
public final class PrivateBus: @unchecked Sendable {
    private let scratch: TemporaryDirectory
    var directory: URL { scratch.url }
    public var directoryPath: String { directory.path }
    public let address: String
    private let socketPath: String
    private let configPath: String
    private var pid: pid_t = 0

    public init() throws {
        scratch = try TemporaryDirectory(prefix: "ftms-bus")
        socketPath = scratch.file("system_bus_socket")
        configPath = scratch.file("bus.conf")
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>systemd:</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
              </policy>
            </busconfig>
            """
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        address = "unix:path=\(socketPath)"
        try spawn()
    }

    /// Makes the listening socket and starts dbus-daemon on it. systemd's protocol wants the
    /// daemon's own pid in `LISTEN_PID`, so a shell sets it and execs the daemon.
    private func spawn() throws {
        let listener = try Self.listen(on: socketPath)
        defer { close(listener) }
        do {
            pid = try spawnChild(
                ["/bin/sh", "-c", #"LISTEN_PID=$$ exec "$0" "$@""#, "/usr/bin/dbus-daemon", "--config-file=\(configPath)", "--nofork", "--nopidfile"],
                passing: [listener], extraEnvironment: ["LISTEN_FDS": "1"])
        } catch {
            throw BusStartError(description: "\(error)")
        }
    }

    /// A listening Unix socket at `path`, close-on-exec here (the daemon gets its own copy).
    private static func listen(on path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw BusStartError(description: "socket: \(errnoText(errno))") }
        guard UnixSocketAddress.with(path: path, { bind(descriptor, $0, $1) }) == 0, Glibc.listen(descriptor, 128) == 0 else {
            let reason = errnoText(errno)
            close(descriptor)
            throw BusStartError(description: "cannot listen on \(path): \(reason)")
        }
        return descriptor
    }

    /// The bus itself restarts at the same address, as when an operator restarts dbus: every
    /// connection to it is lost, and the peers must connect again.
    public func restart() async throws {
        if pid > 0 {
            let old = pid
            pid = 0
            await ChildExit.terminate(old, grace: .seconds(1))
        }
        try? FileManager.default.removeItem(atPath: socketPath)
        try spawn()
    }

    /// Stops the daemon (TERM now; KILL after a second and the reaping on a thread of their
    /// own) and removes its directory.
    public func stop() {
        guard pid > 0 else { return }
        ChildExit.terminateInBackground(pid, grace: .seconds(1))
        pid = 0
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}

public struct BusStartError: Error, CustomStringConvertible {
    public let description: String
}

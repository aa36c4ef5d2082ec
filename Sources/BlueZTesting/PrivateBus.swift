import Foundation
import TestSupport
import LocalSocket

#if canImport(Glibc)
import Glibc
#endif

/// A real `dbus-daemon` with a system-bus-like configuration, private to one test.
public final class PrivateBus: @unchecked Sendable {
    let directory: URL
    public var directoryPath: String { directory.path }
    public let address: String
    private var pid: pid_t = 0

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ftms-bus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("system_bus_socket").path
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
              </policy>
            </busconfig>
            """
        let configFile = directory.appendingPathComponent("bus.conf")
        try config.write(to: configFile, atomically: true, encoding: .utf8)
        address = "unix:path=\(socket)"
        try spawn()
    }

    /// Starts dbus-daemon on the directory's config and waits for its socket.
    private func spawn() throws {
        let socket = directory.appendingPathComponent("system_bus_socket").path
        let configFile = directory.appendingPathComponent("bus.conf")
        do {
            pid = try spawnChild(["/usr/bin/dbus-daemon", "--config-file=\(configFile.path)", "--nofork", "--nopidfile"])
        } catch {
            throw BusStartError(description: "\(error)")
        }
        // The socket file appears at bind(), a moment before listen(): wait until a connect
        // is accepted, or a test's first connection can be refused.
        let deadline = Date().addingTimeInterval(10)
        while !Self.accepts(socket) {
            guard Date() < deadline else { throw BusStartError(description: "dbus-daemon did not listen on \(socket)") }
            usleep(10_000)
        }
    }

    private static func accepts(_ path: String) -> Bool {
        SocketProbe.connect(path) == .listening
    }

    /// The bus itself restarts at the same address, as when an operator restarts dbus: every
    /// connection to it is lost, and the peers must connect again.
    public func restart() throws {
        terminate()
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("system_bus_socket"))
        try spawn()
    }

    /// Stops the daemon (TERM, then KILL after a second) and reaps it.
    public func stop() {
        guard pid > 0 else { return }
        terminate()
        try? FileManager.default.removeItem(at: directory)
    }

    private func terminate() {
        guard pid > 0 else { return }
        ChildExit.terminate(pid, grace: .seconds(1))
        pid = 0
    }

    deinit { stop() }
}

public struct BusStartError: Error, CustomStringConvertible {
    public let description: String
}

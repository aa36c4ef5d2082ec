public import DBus
import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `ftms-sim`, the Swift simulator of BlueZ 5.66 and SolidFocus machines, started as a real
/// process on a ``PrivateBus``.
///
/// Its stdout (the ready line) and stderr (one line per event) go to files in the bus's
/// directory, so a failing test can show what the simulator saw.
public final class SimulatedBlueZ: BlueZMockControls, @unchecked Sendable {
    public let bus: PrivateBus
    /// A connection for the `org.bluez.Mock` controls.
    public let control: DBusConnection
    /// `ready NAME=ADDRESS …`, as printed.
    public let readyLine: String
    public let logPath: String
    private var pid: pid_t = 0

    /// The built `ftms-sim`: `FTMS_SIM` when set, else next to the running test bundle (where
    /// SwiftPM puts every product of the build).
    public static func builtBinary() -> String {
        if let path = ProcessInfo.processInfo.environment["FTMS_SIM"], !path.isEmpty { return path }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("ftms-sim").path
    }

    /// Starts `ftms-sim ARGUMENTS --bus BUS` and returns once it printed its ready line, which it
    /// does after taking `org.bluez`.
    public init(bus: PrivateBus, arguments: [String] = [], binary: String = SimulatedBlueZ.builtBinary(), timeout: Duration = .seconds(20)) async throws {
        self.bus = bus
        logPath = bus.directoryPath + "/ftms-sim.log"
        let readyPath = bus.directoryPath + "/ftms-sim.out"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BusStartError(description: "no ftms-sim at \(binary): build it first (swift build --product ftms-sim) or set FTMS_SIM")
        }
        do {
            pid = try spawnChild(
                [binary] + arguments + ["--bus", bus.address], stdout: .file(readyPath), stderr: .file(logPath, append: true))
        } catch {
            throw BusStartError(description: "\(error)")
        }
        let deadline = ContinuousClock.now + timeout
        var ready: String?
        while ready == nil {
            let output = (try? String(contentsOfFile: readyPath, encoding: .utf8)) ?? ""
            ready = output.split(separator: "\n").first { $0.hasPrefix("ready") }.map(String.init)
            if ready != nil { break }
            if ChildExit.poll(pid) != nil {
                pid = 0
                throw BusStartError(description: "ftms-sim exited before it was ready: \(Self.tail(of: logPath))")
            }
            guard ContinuousClock.now < deadline else {
                ChildExit.killInBackground(pid)
                pid = 0
                throw BusStartError(description: "ftms-sim was not ready in time: \(Self.tail(of: logPath))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        readyLine = ready ?? ""
        control = try await DBusConnection.connect(address: bus.address)
    }

    /// The machines the ready line announced: name → address.
    public var machines: [String: String] {
        Dictionary(readyLine.split(separator: " ").dropFirst().compactMap { pair -> (String, String)? in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }, uniquingKeysWith: { first, _ in first })
    }

    /// Everything it logged so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The clients (unique bus names) that made a `member` call to BlueZ, first caller first:
    /// the simulator logs each such call as `MEMBER PATH from :1.N`.
    public func clients(calling member: String) -> [String] {
        var clients: [String] = []
        for line in log.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(of: Substring(member)), index + 3 < words.count, words[index + 2] == "from" else { continue }
            let client = String(words[index + 3])
            if !clients.contains(client) { clients.append(client) }
        }
        return clients
    }

    /// Waits (bounded) until the simulator has handled `client` leaving the bus, and returns
    /// the crash it logged on the way (`--fault notify-uaf`: bluetoothd 5.66's use-after-free),
    /// or nil when bluetoothd came through.
    public func crash(whenLeaving client: String, timeout: Duration = .seconds(20)) async throws -> String? {
        try await waitUntil("ftms-sim to handle \(client) leaving the bus") {
            let log = log
            return log.contains("client \(client) left the bus") || log.contains("bluetoothd crashed")
        }
        return log.split(separator: "\n").first { $0.contains("bluetoothd crashed") }.map(String.init)
    }

    /// SIGTERM, then SIGKILL if it has not exited within `grace`; its exit status (128 +
    /// signal when killed), or nil when it was not running.
    @discardableResult
    public func terminate(grace: Duration = .seconds(5)) async -> Int32? {
        control.close()
        guard pid > 0 else { return nil }
        let running = pid
        pid = 0
        return await ChildExit.terminate(running, grace: grace)
    }

    /// SIGTERM now, for a stop that must not wait (a `defer`, a `deinit`): SIGKILL after
    /// `grace` and the reaping happen on a thread of their own.
    public func stop(grace: Duration = .seconds(5)) {
        control.close()
        guard pid > 0 else { return }
        ChildExit.terminateInBackground(pid, grace: grace)
        pid = 0
    }

    /// SIGKILL, as a crashing bluetoothd goes (reaped on a thread of its own).
    public func kill() {
        control.close()
        guard pid > 0 else { return }
        ChildExit.killInBackground(pid)
        pid = 0
    }

    /// Waits for the process to exit by itself (the bus went away, say): its exit status, or
    /// nil if it still runs after `limit`.
    @discardableResult
    public func waitForExit(within limit: Duration) async -> Int32? {
        guard pid > 0 else { return nil }
        guard let status = await ChildExit.exit(of: pid, within: limit, killAtEnd: false) else { return nil }
        pid = 0
        return status
    }

    private static func tail(of path: String) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(3).joined(separator: " | ")
    }

    deinit { stop() }
}

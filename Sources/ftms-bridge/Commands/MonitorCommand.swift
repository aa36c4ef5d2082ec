import JSON
import ArgumentParser
import BlueZ
import DaemonConfig
import FTMS
import Foundation
import Publish

/// `ftms-bridge monitor MACHINE [--json]` (contract §9): stream a machine's decoded frames.
/// With a daemon running, what the daemon decodes, read from its metrics socket
/// (``MonitorThroughDaemon``): the daemon holds the machine's link, and a second client
/// would acquire its characteristics again. With no daemon, or `--direct`: connect,
/// initialise and stream over BlueZ.
struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Stream a machine's decoded data and status.",
        discussion: """
            MACHINE is a name (SF-Bike-0001) or an address. When the daemon (ftms-bridged) is running, this \
            prints what the daemon decodes, from its metrics socket, and opens no Bluetooth link of its own; \
            otherwise, or with --direct, it connects to the machine itself over the system bus or \
            DBUS_SYSTEM_BUS_ADDRESS. --record needs the direct link.
            """
    )

    @Argument(help: "The machine's name or address.")
    var machine: String

    @Flag(help: "One JSON object per frame (contract §3.1 names).")
    var json = false

    @Option(help: "Stop after this many frames.")
    var count: Int?

    @Option(help: "Also record what the link sees to this .ftmscap file, for replay (needs the direct link: --direct when the daemon runs).")
    var record: String?

    @Option(help: "Seconds to discover for when the machine is not already known (through the daemon: to wait for the daemon to know it).")
    var scanTimeout: Double = 5

    @OptionGroup var adapter: AdapterOptions

    @OptionGroup var daemon: DaemonSocketOptions

    @Option(
        name: .customLong("metrics-socket"),
        help: "The running daemon's metrics socket (default: the config's metrics_socket.path, else $\(GatewayPaths.runtimeDirectoryVariable)/\(GatewayPaths.metricsSocketName), else \(GatewayPaths.defaultMetricsSocket)).")
    var metricsSocket: String?

    @OptionGroup var config: ConfigFileOption

    func run() async throws {
        // A daemon that answers holds the gym's links: read what it decodes instead of
        // becoming a second client of the same machine.
        if try daemon.ask(.machines, command: "monitor", config: config, timeout: .seconds(10)) != nil {
            guard record == nil else {
                printError("monitor: --record needs the machine's own frames, which only a direct link sees: add --direct (a second Bluetooth client beside the running daemon)")
                throw ExitCode(1)
            }
            let socket: String
            do {
                socket = try config.resolve(.metricsSocket, flag: metricsSocket)
            } catch {
                printError("monitor: \(error)")
                throw ExitCode(1)
            }
            try MonitorThroughDaemon(
                socket: socket, machine: machine, json: json, count: count, lookFor: .milliseconds(Int(scanTimeout * 1000))
            ).run()
            return
        }
        try await withBlueZ(command: "monitor") { client in
            let filter = adapter.filter(acceptGenericFTMS: true)
            // The first search gives a clear error; after that the supervisor finds it again
            // by address, through link drops and bluetoothd restarts, until we stop.
            let found = try await client.locate(
                MachineTarget(machine), filter: filter, timeout: .milliseconds(Int(scanTimeout * 1000)))
            var target = MachineTarget(machine)
            target.remember(found)
            let recorder = try record.map { try CaptureRecorder(path: $0) }
            let supervisor = MachineSupervisor(client: client, target: target, filter: filter)
            let running = Task { await supervisor.run() }
            // A stop signal cancels this task: the supervisor is cancelled with it, and its
            // end (the link given back, sockets first) is awaited below.
            await withTaskCancellationHandler {
                await stream(supervisor, running: running, recorder: recorder, target: target)
            } onCancel: {
                running.cancel()
            }
            await running.value
        }
    }

    /// Prints the supervisor's events until its stream ends; cancels `running` once `--count`
    /// frames are out or stdout is gone.
    private func stream(
        _ supervisor: MachineSupervisor, running: Task<Void, Never>, recorder: CaptureRecorder?, target: MachineTarget
    ) async {
        var printed = 0
        var buffer = JSONBuffer()
        for await event in supervisor.events {
            switch event {
            case .ready(let info):
                recorder?.ready(info)
                if !json {
                    printLine("connected to \(info.name) (\(info.address)), \(info.manufacturer ?? "?") \(info.model ?? "?"), \(info.type.rawValue)")
                }
            case .notification(let characteristic, let value):
                recorder?.notified(characteristic, value)
                let message = value.withUnsafeBytes { FTMSMessage(characteristic: characteristic, decoding: $0) }
                buffer.removeAll()
                message.writeJSON(into: &buffer)
                let delivered = printLine(json ? buffer.string : Self.readable(message, json: buffer.string))
                printed += 1
                if !delivered || count.map({ printed >= $0 }) == true { running.cancel() }
            case .disconnected(let reason):
                recorder?.disconnected()
                printError("monitor: \(target): \(reason)")
            case .retrying(let delay, let reason):
                printError("monitor: \(target): \(reason); retrying in \(delay.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1))))")
            case .connecting, .placed, .waiting:
                break
            }
        }
    }

    /// `name=value` pairs for data records, the JSON for everything else.
    static func readable(_ message: FTMSMessage, json: String) -> String {
        guard case .data(let record) = message else { return json }
        let fields = record.kind.layout.entries.compactMap { entry -> String? in
            guard let raw = record.values.raw(entry.field) else { return nil }
            let descriptor = entry.field.descriptor
            guard raw != descriptor.notAvailable else { return "\(descriptor.jsonName)=n/a" }
            var value = JSONBuffer(capacity: 16)
            value.appendFixedPoint(raw, scale: descriptor.scale)
            return "\(descriptor.jsonName)=\(value.string)"
        }
        var flags: [String] = []
        if record.truncated { flags.append("truncated") }
        if record.trailingBytes > 0 { flags.append("trailing_bytes=\(record.trailingBytes)") }
        return ([record.kind.characteristic.jsonName.description] + fields + flags).joined(separator: " ")
    }
}

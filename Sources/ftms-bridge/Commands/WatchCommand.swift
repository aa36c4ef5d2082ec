import ProcessOutput
import JSON
import ArgumentParser
import Clocks
import DaemonConfig
import Dashboard
import Foundation
import MetricsClient
import NIOCore
import Publish

/// `ftms-bridge watch [--socket PATH]` (contract §9): the metrics socket as a live table, one row
/// per machine redrawn in place (the default on a terminal), as lines a person reads (the
/// default on a pipe, or `--lines`), or, with `--json`, exactly as it comes.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the live metrics stream of the daemon (or of `replay --publish`).",
        discussion: "On a terminal, a table refreshed in place (like top); on a pipe, one line per message. docs/metrics-socket.md describes the protocol. --machine and --type narrow the stream on the daemon's side."
    )

    @Option(
        help: "The metrics socket (default: the config's metrics_socket.path, else $\(GatewayPaths.runtimeDirectoryVariable)/\(GatewayPaths.metricsSocketName), else \(GatewayPaths.defaultMetricsSocket)).")
    var socket: String?

    @OptionGroup var config: ConfigFileOption

    @Flag(help: "Print each message exactly as received (NDJSON).")
    var json = false

    @Flag(help: "One line per message, even on a terminal.")
    var lines = false

    @Flag(help: "The table, even on a pipe (each refresh printed whole, separated by a blank line).")
    var table = false

    @Option(help: "Only these machines (names); repeatable.")
    var machine: [String] = []

    @Option(help: "Only these message types (sample, status, session_state, …); repeatable.")
    var type: [String] = []

    @Option(help: "Stop after this many messages (not counting hello).")
    var count: Int?

    func validate() throws {
        if table, json || lines { throw ValidationError("--table is neither --json nor --lines") }
    }

    func run() async throws {
        let tableMode = table || (!json && !lines && isatty(1) == 1)
        let inPlace = tableMode && isatty(1) == 1
        var floor = WatchTable()
        let socket: String
        do {
            socket = try config.resolve(.metricsSocket, flag: self.socket)
        } catch {
            throw Self.failure("\(error)")
        }
        let filter = machine.isEmpty && type.isEmpty ? nil : WatchFilter(machines: Set(machine), types: Set(type.map(MessageType.init(rawValue:))))
        var printed = 0
        do throws(WatchEnd) {
            try await MetricsSocketClient(path: socket, watch: filter).run { (event) throws(WatchEnd) in
                let line: ByteBuffer
                var message: MetricsMessage?
                switch event {
                case .connected:
                    return
                case .message(let read, let bytes):
                    message = read
                    line = bytes
                case .unreadable(let bytes, _):
                    line = bytes
                case .disconnected(let reason, _):
                    throw .disconnected(reason)
                }
                if tableMode {
                    let now = WallClock.system.now().unixSeconds
                    if let message { floor.apply(message, now: now) }
                    if floor.due(now: now) {
                        // Home and clear, then the table: a whole frame per write, so it never tears.
                        guard printLine((inPlace ? "\u{1B}[H\u{1B}[2J" : "") + floor.rendered(now: now) + (inPlace ? "" : "\n")) else { throw .outputClosed }
                    }
                } else {
                    let text = String(decoding: line.readableBytesView, as: UTF8.self)
                    guard printLine(json ? text : message.map(Self.readable) ?? text) else { throw .outputClosed }
                }
                // --count counts the stream itself: the hello that opens it (and answers a
                // watch request) is not one of the messages asked for.
                if message?.envelope.type != .hello { printed += 1 }
                if let count, printed >= count {
                    if tableMode { _ = printLine((inPlace ? "\u{1B}[H\u{1B}[2J" : "") + floor.rendered(now: WallClock.system.now().unixSeconds)) }
                    throw .counted
                }
            }
        } catch {
            switch error {
            case .counted, .outputClosed:
                return
            case .disconnected(.cannotConnect(let reason)):
                throw Self.failure("\(socket): \(reason) (is the daemon running?)")
            case .disconnected(.closed):
                throw Self.failure("\(socket): the daemon closed the stream")
            case .disconnected(.failed(let reason)):
                throw Self.failure("\(socket): \(reason)")
            }
        }
    }

    /// Why `watch` stops reading.
    private enum WatchEnd: Error {
        /// `--count` messages are out.
        case counted
        /// Nobody reads stdout any more.
        case outputClosed
        /// No connection, or the daemon ended the stream: `watch` is a look, not a service,
        /// and does not wait for a daemon to come back.
        case disconnected(MetricsSocketDisconnection)
    }

    private static func failure(_ message: String) -> ExitCode {
        printError("watch: \(message)")
        return ExitCode(1)
    }

    /// `#12 sample SF-Bike-0001 instantaneous_speed_kmh=30.1 instantaneous_cadence_rpm=80 …`
    static func readable(_ message: MetricsMessage) -> String {
        var parts = ["#\(message.envelope.seq)", message.envelope.type.rawValue]
        if let machine = message.envelope.machine { parts.append(machine) }
        let skipped: Set<String> = ["characteristic", "uuid", "flags", "more_data"]
        for key in message.payload.keys.sorted() where !skipped.contains(key) {
            guard let value = message.payload[key], value.array == nil, !value.isObject else { continue }
            parts.append("\(key)=\(value.string ?? JSONWriter.text(value))")
        }
        return parts.joined(separator: " ")
    }
}

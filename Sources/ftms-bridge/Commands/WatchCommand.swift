import ProcessOutput
import JSON
import ArgumentParser
import Clocks
import DaemonConfig
import Dashboard
import Foundation
import LocalSocket
import Publish

/// `ftms-bridge watch [--socket PATH]` (contract §9): the metrics socket as a live table, one row
/// per machine redrawn in place (the default on a terminal), as lines a person reads (the
/// default on a pipe, or `--lines`), or, with `--json`, exactly as it comes.
struct WatchCommand: ParsableCommand {
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

    func run() throws {
        let tableMode = table || (!json && !lines && isatty(1) == 1)
        let inPlace = tableMode && isatty(1) == 1
        var floor = WatchTable()
        let socket: String
        do {
            socket = try config.resolve(.metricsSocket, flag: self.socket)
        } catch {
            throw Self.failure("\(error)")
        }
        var stream = try Self.connect(to: socket)
        if !machine.isEmpty || !type.isEmpty {
            let request: JSONValue = ["watch": ["machines": .array(machine.map(JSONValue.string)), "types": .array(type.map(JSONValue.string))]]
            do {
                try stream.send(JSONWriter.bytes(request) + [UInt8(ascii: "\n")], deadline: .now + Self.connectTimeout)
            } catch {
                throw Self.failure("\(socket): cannot send the watch request (\(error))")
            }
        }
        var printed = 0
        while true {
            let line: [UInt8]
            do {
                line = try stream.readLine(deadline: nil)
            } catch .closed {
                break
            } catch {
                throw Self.failure("\(socket): \(error)")
            }
            if tableMode {
                let now = WallClock.system.now().unixSeconds
                floor.apply(line: line, now: now)
                if floor.due(now: now) {
                    // Home and clear, then the table: a whole frame per write, so it never tears.
                    guard printLine((inPlace ? "\u{1B}[H\u{1B}[2J" : "") + floor.rendered(now: now) + (inPlace ? "" : "\n")) else { return }
                }
            } else {
                guard printLine(json ? String(decoding: line, as: UTF8.self) : Self.readable(line)) else { return }
            }
            // --count counts the stream itself: the hello that opens it (and answers a
            // watch request) is not one of the messages asked for.
            if !Self.isHello(line) { printed += 1 }
            if let count, printed >= count {
                if tableMode { _ = printLine((inPlace ? "\u{1B}[H\u{1B}[2J" : "") + floor.rendered(now: WallClock.system.now().unixSeconds)) }
                return
            }
        }
        printError("watch: \(socket): the daemon closed the stream")
        throw ExitCode(1)
    }

    /// How long connecting (a daemon whose backlog is full) and sending the watch may take.
    static let connectTimeout = Duration.seconds(5)

    /// The metrics socket through the sockets' one client, reading lines of up to the
    /// dashboard's limit (a `hello` with a full gym is tens of KiB).
    static func connect(to path: String) throws -> UnixStream {
        do {
            return try UnixStream.connect(to: path, deadline: .now + connectTimeout, lineLimit: MetricsSocketSource.maximumLine)
        } catch .cannotConnect(let code) {
            throw failure("\(path): \(errnoText(code)) (is the daemon running?)")
        } catch .pathTooLong {
            throw failure("\(path): path too long for a Unix socket (at most \(UnixSocketAddress.maximumPathLength) bytes)")
        } catch {
            throw failure("\(path): \(error)")
        }
    }

    private static func failure(_ message: String) -> ExitCode {
        printError("watch: \(message)")
        return ExitCode(1)
    }

    static func isHello(_ line: [UInt8]) -> Bool {
        line.starts(with: Array(#"{"type":"hello""#.utf8))
    }

    /// `#12 sample SF-Bike-0001 instantaneous_speed_kmh=30.1 instantaneous_cadence_rpm=80 …`
    static func readable(_ line: [UInt8]) -> String {
        guard let envelope = try? JSONReader.read(line), envelope.isObject else {
            return String(decoding: line, as: UTF8.self)
        }
        var parts = ["#\(envelope["seq"].map(JSONWriter.text) ?? "?")", envelope["type"]?.string ?? "?"]
        if let machine = envelope["machine"]?.string { parts.append(machine) }
        if let payload = envelope["payload"]?.object {
            let skipped: Set<String> = ["characteristic", "uuid", "flags", "more_data"]
            for key in payload.keys.sorted() where !skipped.contains(key) {
                guard let value = payload[key], value.array == nil, !value.isObject else { continue }
                parts.append("\(key)=\(value.string ?? JSONWriter.text(value))")
            }
        }
        return parts.joined(separator: " ")
    }
}

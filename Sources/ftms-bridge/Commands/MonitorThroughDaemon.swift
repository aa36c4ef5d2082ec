import ArgumentParser
import JSON
import LocalSocket
import MetricsClient
import Publish

/// `monitor MACHINE` on a gateway whose daemon runs: what the daemon decodes, read from its
/// metrics socket, printed as the direct path prints it. A second GATT client beside the
/// daemon's would acquire the same characteristics again, and on Debian 12's bluetoothd 5.66
/// every client that leaves with acquired sockets risks its use-after-free (docs/bluez.md):
/// an operator looking at one machine must not be able to take down the whole box.
///
/// The daemon publishes one `sample` per merged data record (a machine that splits a record
/// over several frames with More Data is one line here, one line per frame on the direct path)
/// and one `status` per Fitness Machine Status event; both print with the direct path's JSON
/// (the sample's `session_*` figures left out).
struct MonitorThroughDaemon {
    /// The daemon's metrics socket.
    let socket: String
    /// The machine as the operator named it: a name or an address.
    let machine: String
    let json: Bool
    let count: Int?
    /// How long to wait for the daemon to know the machine, as `--scan-timeout` waits for BlueZ.
    let lookFor: Duration

    /// How long connecting (a daemon whose backlog is full) and sending the watch may take.
    static let connectTimeout = Duration.seconds(5)

    /// Streams until `count` frames are out, stdout is gone, or the daemon ends the stream
    /// (exit status 1, one line).
    func run() throws {
        var stream: UnixStream
        do {
            stream = try UnixStream.connect(to: socket, deadline: .now + Self.connectTimeout, lineLimit: MetricsSocketClient.maximumLine)
        } catch {
            // The daemon answered on its control socket: this is a path or permission problem.
            throw Self.failure("the daemon runs, but its metrics socket \(socket) cannot be read (\(error)); --metrics-socket names it, --direct connects without the daemon")
        }
        // Every machine's messages, filtered here: MACHINE may be an address, and the watch
        // filter takes names.
        let request = WatchFilter(types: [.machine, .sample, .status]).requestLine
        do {
            try stream.send(request, deadline: .now + Self.connectTimeout)
        } catch {
            throw Self.failure("\(socket): cannot send the watch request (\(error))")
        }
        var followed = Followed(machine: machine)
        let lookDeadline = ContinuousClock.now + lookFor
        var printed = 0
        while true {
            let line: [UInt8]
            do {
                line = try stream.readLine(deadline: followed.name == nil ? lookDeadline : nil)
            } catch .timedOut {
                throw Self.failure("the daemon has no machine named or addressed '\(machine)' (--direct connects without it)")
            } catch .closed {
                throw Self.failure("\(socket): the daemon closed the stream")
            } catch {
                throw Self.failure("\(socket): \(error)")
            }
            guard let message = try? MetricsMessage(line: line) else { continue }
            switch message.envelope.type {
            case .hello:
                for entry in message.payload["machines"]?.array ?? [] {
                    if let machine = try? MetricsMessage(json: entry) { report(followed.update(machine, initial: true)) }
                }
            case .machine:
                report(followed.update(message, initial: false))
            case .sample, .status:
                guard let name = followed.name, message.envelope.machine == name else { continue }
                let decoded = Self.decoded(message.payload)
                guard printLine(json ? JSONWriter.text(.object(decoded)) : Self.readable(decoded)) else { return }
                printed += 1
                if let count, printed >= count { return }
            default:
                continue
            }
        }
    }

    private func report(_ change: Followed.Change?) {
        switch change {
        case .ready(let line)? where !json: printLine(line)
        case .lost(let line)?: printError("monitor: \(line)")
        default: break
        }
    }

    /// The decoded record or event as the direct path prints it: a sample's session figures
    /// belong to the daemon's session, not to the frame.
    static func decoded(_ payload: JSONObject) -> JSONObject {
        var frame = payload
        for key in payload.keys where key.hasPrefix("session_") { frame[key] = nil }
        return frame
    }

    /// `indoor_bike_data instantaneous_speed_kmh=30.1 …` as the direct path writes it; the JSON
    /// for anything but a data record.
    static func readable(_ frame: JSONObject) -> String {
        guard frame["flags"] != nil || frame["truncated"] != nil, frame["characteristic"]?.string?.hasSuffix("_data") == true,
            let characteristic = frame["characteristic"]?.string
        else { return JSONWriter.text(.object(frame)) }
        let skipped: Set<String> = ["characteristic", "uuid", "flags", "more_data", "truncated", "trailing_bytes"]
        var parts = [characteristic]
        for (key, value) in frame.members where !skipped.contains(key) {
            switch value {
            case .null: parts.append("\(key)=n/a")
            case .array, .object: continue
            default: parts.append("\(key)=\(JSONWriter.text(value))")
            }
        }
        if frame["truncated"]?.bool == true { parts.append("truncated") }
        if let trailing = frame["trailing_bytes"] { parts.append("trailing_bytes=\(JSONWriter.text(trailing))") }
        return parts.joined(separator: " ")
    }

    private static func failure(_ message: String) -> ExitCode {
        printError("monitor: \(message)")
        return ExitCode(1)
    }

    /// Which of the daemon's machines is the one asked for, and its link as the daemon reports it.
    struct Followed {
        let machine: String
        /// The daemon's name for it, once a `machine` message matched.
        private(set) var name: String?
        private var announced = false

        init(machine: String) { self.machine = machine }

        enum Change: Equatable {
            /// `connected to …`, printed once per link (a person's line, not JSON's).
            case ready(String)
            /// The link went, and why (stderr, as the direct path's).
            case lost(String)
        }

        /// Takes one `machine` envelope (a message, or an entry of `hello`'s list).
        mutating func update(_ message: MetricsMessage, initial: Bool) -> Change? {
            let payload = message.payload
            let entryName = payload["name"]?.string ?? message.envelope.machine
            let address = payload["address"]?.string
            let matches = entryName == machine || message.envelope.machine == machine
                || address.map { $0.lowercased() == machine.lowercased() } == true
            guard matches, let named = message.envelope.machine ?? entryName else { return nil }
            name = named
            let target = "\(named) (\(address ?? "?"))"
            switch payload["state"]?.string {
            case "ready":
                guard !announced else { return nil }
                announced = true
                let manufacturer = payload["manufacturer"]?.string ?? "?"
                let model = payload["model"]?.string ?? "?"
                let type = payload["type"]?.string ?? "?"
                return .ready("connected to \(named) (\(address ?? "?")), \(manufacturer) \(model), \(type) (through the daemon)")
            case "disconnected":
                let wasReady = announced
                announced = false
                guard !initial, wasReady || payload["reason"] != nil else { return nil }
                return .lost("\(target): \(payload["reason"]?.string ?? "the link dropped")")
            default:
                announced = false
                return nil
            }
        }
    }
}

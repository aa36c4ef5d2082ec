// Whole-process latency figures, against a BlueZ peer on a private bus:
//
// 1. D-Bus round trip: `Properties.Get(Device1, "Name")` from our binding to the peer, N times.
// 2. Notification → `ftms-bridge monitor --json` output: from the moment the simulator hands the
//    signal to the bus (it reports that instant, CLOCK_MONOTONIC, from `NotifyValueTimed`) to the
//    moment the decoded line arrives on monitor's stdout pipe. The dbusmock peer cannot say when
//    it emitted, so there the clock starts before the control call: an upper bound.
//
// 3. With `--target daemon`: notification → a reader of `ftms-bridge run`'s metrics socket, the
//    `sample` line's arrival, from the same emission instant.
//
// 4. `--background N` (sim peer, daemon target): N more machines streaming at 4 Hz through the
//    same daemon while SF-Bike-0001 is measured ("with 10 machines" is --background 9);
//    `--no-acquire` makes the simulator refuse AcquireNotify, so every frame is a bus signal.
//
//   ftms-latency --bridge PATH [--peer sim|dbusmock] [--sim PATH] [--calls N] [--frames N] [--target monitor|daemon]
//                [--background N] [--no-acquire true]
//
// Prints median, p90, p99 and max for each, in microseconds.
import BlueZTesting
import DBus
import Foundation

struct Options {
    var bridge = "../.build/release/ftms-bridge"
    var peer = "dbusmock"
    var sim = "../.build/release/ftms-sim"
    var calls = 5_000
    var frames = 2_000
    var target = "monitor"
    var background = 0
    var noAcquire = false

    init(_ arguments: [String]) throws {
        var iterator = arguments.dropFirst().makeIterator()
        while let flag = iterator.next() {
            guard let value = iterator.next() else { throw Failure("\(flag) needs a value") }
            switch flag {
            case "--bridge": bridge = value
            case "--peer": peer = value
            case "--sim": sim = value
            case "--calls": calls = Int(value) ?? calls
            case "--frames": frames = Int(value) ?? frames
            case "--target": target = value
            case "--background": background = Int(value) ?? background
            case "--no-acquire": noAcquire = value == "true"
            default: throw Failure("unknown option \(flag)")
            }
        }
    }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}


/// CLOCK_MONOTONIC, the clock the simulator reports emission on.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

func summary(_ label: String, _ samples: [Duration]) -> String {
    let micros = samples.map { Double($0.components.attoseconds) / 1e12 + Double($0.components.seconds) * 1e6 }.sorted()
    func quantile(_ q: Double) -> Double { micros[min(micros.count - 1, Int(Double(micros.count) * q))] }
    return String(format: "%@: n=%d median %.1f µs, p90 %.1f µs, p99 %.1f µs, max %.1f µs",
                  label, micros.count, quantile(0.5), quantile(0.9), quantile(0.99), micros.last ?? 0)
}

/// Timestamps each line monitor writes (or each `sample` line of the metrics socket), on a
/// thread of its own so reading never waits on us.
final class LineClock: @unchecked Sendable {
    private let lock = NSLock()
    private var arrivals: [UInt64] = []

    func start(reading handle: FileHandle) {
        start(descriptor: handle.fileDescriptor, counting: [])
    }

    /// Counts only lines containing every one of `markers` (split across reads is handled).
    func start(descriptor: Int32, counting markers: [String]) {
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var line: [UInt8] = []
            let needles = markers.map { Array($0.utf8) }
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { return }
                let now = monotonicNanoseconds()
                var lines = 0
                for byte in buffer[0..<count] {
                    if byte == UInt8(ascii: "\n") {
                        let matches = needles.allSatisfy { needle in
                            line.count >= needle.count && (0...(line.count - needle.count)).contains { line[$0..<($0 + needle.count)].elementsEqual(needle) }
                        }
                        if matches { lines += 1 }
                        line.removeAll(keepingCapacity: true)
                    } else if !needles.isEmpty {
                        line.append(byte)
                    }
                }
                self.lock.lock()
                for _ in 0..<lines { self.arrivals.append(now) }
                self.lock.unlock()
            }
        }
        thread.start()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return arrivals.count
    }

    func arrival(_ index: Int) -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        return index < arrivals.count ? arrivals[index] : nil
    }
}

@main
struct Main {
    static func main() async {
        do {
            try await run(try Options(CommandLine.arguments))
        } catch {
            FileHandle.standardError.write(Data("ftms-latency: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(_ options: Options) async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let (peer, stopPeer) = try await startPeer(options, bus: bus)
        defer { stopPeer() }
        _ = try await peer.mock("AddAdapter", [.string("hci0"), .string("gateway")])
        let device = try await peer.mock(
            "AddFTMSMachine", [.string("hci0"), .string("C0:11:22:33:44:01"), .string("SF-Bike-0001"), .string("bike")]
        ).first?.string ?? ""
        var backgroundDevices: [String] = []
        for index in 0..<options.background {
            let rower = index % 2 == 1
            let name = String(format: rower ? "SF-Rower-%04d" : "SF-Bike-%04d", 100 + index)
            let address = String(format: "C0:11:22:33:45:%02X", index)
            backgroundDevices.append(try await peer.mock(
                "AddFTMSMachine", [.string("hci0"), .string(address), .string(name), .string(rower ? "rower" : "bike")]
            ).first?.string ?? "")
        }

        // 1. Round trips.
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let clock = ContinuousClock()
        var roundTrips: [Duration] = []
        for index in 0..<(options.calls + 200) {
            let started = clock.now
            _ = try await connection.call(
                destination: "org.bluez", path: device, interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: [.string("org.bluez.Device1"), .string("Name")], timeout: .seconds(5))
            if index >= 200 { roundTrips.append(clock.now - started) }  // after warm-up
        }
        print(summary("Properties.Get round trip (\(options.peer))", roundTrips))

        // 2. Notification → monitor output (or → the daemon's metrics socket).
        let paths = try await peer.mock("GetGattPaths", [.string(device)]).first?.stringDictionary ?? [:]
        guard let data = paths["2ad2"]?.string, let controlPoint = paths["2ad9"]?.string else { throw Failure("no GATT paths") }
        let daemon = options.target == "daemon"
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("ftms-latency-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let socketPath = work.appendingPathComponent("metrics.sock").path
        let monitor = Process()
        monitor.executableURL = URL(fileURLWithPath: options.bridge)
        if daemon {
            // One simulated adapter carries the timed machine and the background ones: the
            // link budget (default 7 per adapter) must take them all.
            let config = """
                [machines]
                max_per_adapter = \(max(7, options.background + 1))
                [state]
                directory = "\(work.path)"
                [metrics_socket]
                path = "\(socketPath)"
                [control_socket]
                path = "\(work.appendingPathComponent("control.sock").path)"
                [prometheus]
                enabled = false
                [log]
                level = "warning"
                """
            try config.write(to: work.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
            monitor.arguments = ["run", "--config", work.appendingPathComponent("config.toml").path]
        } else {
            monitor.arguments = ["monitor", "SF-Bike-0001", "--direct", "--json", "--count", "\(options.frames + 50)"]
        }
        monitor.environment = ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": bus.address]) { $1 }
        let pipe = Pipe()
        monitor.standardOutput = pipe
        try monitor.run()
        defer { if monitor.isRunning { monitor.terminate() } }
        let lines = LineClock()
        if daemon {
            let reader = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in socketPath.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
            }
            let connectDeadline = clock.now + .seconds(30)
            while withUnsafePointer(to: &address, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(reader, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }) != 0 {
                guard clock.now < connectDeadline else { throw Failure("the daemon's metrics socket never accepted") }
                try await Task.sleep(for: .milliseconds(50))
            }
            // Only SF-Bike-0001's samples: the background machines publish theirs too.
            lines.start(descriptor: reader, counting: ["\"type\":\"sample\"", "\"SF-Bike-0001\""])
        } else {
            lines.start(reading: pipe.fileHandleForReading)
        }
        let deadline = clock.now + .seconds(30)
        while (try await peer.mock("GetWrites", [.string(controlPoint)]).first?.array ?? []).isEmpty {
            guard clock.now < deadline else { throw Failure("monitor never took control") }
            try await Task.sleep(for: .milliseconds(20))
        }
        // The background machines connected and streaming before the first measured frame.
        for background in backgroundDevices {
            let points = try await peer.mock("GetGattPaths", [.string(background)]).first?.stringDictionary ?? [:]
            let point = points["2ad9"]?.string ?? ""
            while (try await peer.mock("GetWrites", [.string(point)]).first?.array ?? []).isEmpty {
                guard clock.now < deadline + .seconds(30) else { throw Failure("the daemon never took control of \(background)") }
                try await Task.sleep(for: .milliseconds(50))
            }
            _ = try await peer.mock("SetStreamRate", [.string(background), .double(4)])
        }
        var latencies: [Duration] = []
        let timed = options.peer == "sim"
        for index in 0..<(options.frames + 50) {
            let frame = String(format: "0000%02x%02x", index & 0xFF, (index >> 8) & 0xFF)
            let started = clock.now
            var emitted = monotonicNanoseconds()
            let reply = try await peer.mock(timed ? "NotifyValueTimed" : "NotifyValue", [.string(data), .string(frame)])
            if timed, case .uint64(let at)? = reply.first { emitted = at }
            while lines.count <= index {
                guard clock.now - started < .seconds(5) else { throw Failure("frame \(index) never reached \(daemon ? "the metrics socket" : "monitor's output")") }
                try await Task.sleep(for: .microseconds(50))
            }
            if index >= 50, let arrived = lines.arrival(index) { latencies.append(.nanoseconds(Int64(arrived) - Int64(emitted))) }
            try await Task.sleep(for: .milliseconds(1))
        }
        let sink = daemon ? "metrics-socket reader (ftms-bridge run)" : "monitor output"
        print(summary("notification → \(sink) (\(options.peer)\(timed ? ", from emission" : ", upper bound"))", latencies))
        if daemon { monitor.terminate() }
        monitor.waitUntilExit()
    }

    /// The peer under test, empty of machines, and how to stop it.
    static func startPeer(_ options: Options, bus: PrivateBus) async throws -> (any BlueZMockControls, () -> Void) {
        switch options.peer {
        case "dbusmock":
            let fake = try await FakeBlueZ(bus: bus)
            return (fake, fake.stop)
        case "sim":
            let sim = try await SimulatedBlueZ(
                bus: bus, arguments: ["--adapters", "0", "--bikes", "0", "--rowers", "0", "--rate", "0"] + (options.noAcquire ? ["--no-acquire-notify"] : []),
                binary: options.sim)
            return (sim, { sim.stop() })
        default:
            throw Failure("unknown peer \(options.peer): dbusmock or sim")
        }
    }
}

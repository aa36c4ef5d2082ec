import BlueZ
import BlueZTesting
import TestSupport
import Daemon
import Publish
import DBus
import Foundation
import Logging
import NIOPosix
import Store
import Workout
import RetryTiming

/// A fleet against a real private dbus-daemon and the built `ftms-sim`, writing to a real
/// SQLite store in a temporary directory. Session timers are seconds, not minutes.
final class FleetRig: @unchecked Sendable {
    let bus: PrivateBus
    var sim: SimulatedBlueZ
    /// The store's directory: a second rig on the same store shares it, so it goes with the last.
    let directory: TemporaryDirectory
    let store: GatewayStore
    let fleet: MachineFleet
    private var task: Task<Void, Never>?
    let stored = Counter()

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func increment() { lock.withLock { value += 1 } }
        var count: Int { lock.withLock { value } }
    }

    static var rules: SessionRules {
        var rules = SessionRules()
        rules.pauseAfterIdle = .seconds(1)
        rules.endAfterIdle = .seconds(2)
        rules.minimumMovement = .milliseconds(500)
        rules.disconnectGrace = .seconds(30)
        rules.checkpointInterval = .milliseconds(300)
        return rules
    }

    init(simulator arguments: [String], allow: [String] = [], rules: SessionRules = FleetRig.rules, directory existing: TemporaryDirectory? = nil, bus existingBus: PrivateBus? = nil, maxConnected: Int = 10, maxPerAdapter: Int = 7, eventLoopReads: Bool = true, reuse: SimulatedBlueZ? = nil, metricsServer: MetricsServer? = nil, mqtt: (any EnvelopeForwarder)? = nil, floor: (any FloorHooks)? = nil, configure: (inout FleetSettings) -> Void = { _ in }) async throws {
        bus = try existingBus ?? PrivateBus()
        if let reuse {
            sim = reuse
        } else {
            sim = try await SimulatedBlueZ(bus: bus, arguments: arguments)
        }
        directory = try existing ?? TemporaryDirectory(prefix: "ftms-daemon")
        store = try GatewayStore(directory: directory.path)
        var logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        logger.logLevel = .critical
        let stored = stored
        // As the daemon runs it: periodic checkpoints batched over half the checkpoint interval.
        let keeper = FinishedSessionKeeper(store: store, window: rules.checkpointInterval / 2, logger: logger)
        let sink = SessionSink(keeper: keeper, publisher: LivePublisher(server: metricsServer, mqtt: mqtt), logger: logger, sessionStored: { stored.increment() })
        var settings = FleetSettings(busAddress: bus.address, allow: allow, maxConnected: maxConnected, maxPerAdapter: maxPerAdapter)
        settings.filter = MachineFilter(namePatterns: MachineFilter().namePatterns + allow.filter { !$0.contains(":") })
        settings.busBackoff = Backoff(initial: .milliseconds(100), maximum: .milliseconds(500))
        settings.supervisorTiming = MachineSupervisor.Timing(locate: .seconds(5), connect: .seconds(5), resolve: .seconds(5), placementRecheck: .seconds(1))
        configure(&settings)
        // As the daemon runs it: the fleet, its workers, the metrics socket and the acquired
        // sockets on one event loop.
        let loop = metricsServer?.eventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
        fleet = MachineFleet(
            settings: settings, sink: sink, clock: .system(), rules: rules, logger: logger, eventLoop: loop,
            datagramReader: eventLoopReads ? EventLoopDatagramReader(loop: loop) : nil, floor: floor)
    }

    func start(restoring: Bool = false) async throws {
        if restoring { await fleet.restore(try await store.loadAll()) }
        let fleet = fleet
        task = Task { await fleet.run() }
    }

    /// Cancels the fleet (as SIGTERM does) and waits for it to finish.
    func stopFleet() async {
        task?.cancel()
        await task?.value
        task = nil
    }

    func stop() async {
        await stopFleet()
        sim.stop()
        try? store.close()
        bus.stop()
    }

    /// The device path of a simulated machine.
    func device(_ name: String) -> String {
        let address = sim.machines[name] ?? ""
        return "/org/bluez/hci0/dev_" + address.replacingOccurrences(of: ":", with: "_")
    }

    /// Stops the machine's rider: no more frames, so its session pauses and ends.
    func stopRiding(_ name: String) async throws {
        _ = try await sim.mock("SetStreamRate", [.string(device(name)), .double(0)])
    }

    /// Connected Device1 objects per adapter name, as BlueZ (the simulator) has them: the
    /// links themselves, not what the fleet says about them.
    func links() async throws -> [String: Int] {
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let client = BlueZClient(connection: connection)
        try await client.start()
        let tree = await client.tree
        await client.stop()
        var links: [String: Int] = [:]
        for path in tree.paths(with: BlueZNames.device) where tree.properties(path, BlueZNames.device)?["Connected"]?.bool == true {
            links[String(path.split(separator: "/")[2]), default: 0] += 1
        }
        return links
    }

    func statuses() async -> [String: MachineStatus] {
        Dictionary(uniqueKeysWithValues: await fleet.statuses().map { ($0.name, $0) })
    }
}

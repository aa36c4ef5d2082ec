import BlueZ
import TestSupport
import Daemon
import DBus
import Foundation
import Store
import Testing
import Workout
import RetryTiming

/// Machines found the moment they wake, and rides that survive the gateway. The fleet
/// against a real dbus-daemon and `ftms-sim`, whose machines are switched on late, go to
/// sleep and wake, and whose bluetoothd comes after the daemon.
///
/// Every timer that could also find a machine is set to an hour here (``eventsOnly(_:)``:
/// the discovery refresh and check, and a reconnect backoff where one is waited out), so a
/// machine found before the wait gives up was found because an event drove the search, not
/// because a timer ran out; the waits are hang detectors, not bounds on how fast the machine is.
@Suite("Daemon: machines found when they wake", .serialized)
struct FleetDiscoveryTests {
    static func machineReady(_ rig: FleetRig, _ name: String = "SF-Bike-0001") async -> Bool {
        await rig.statuses()[name]?.state == .ready
    }

    /// No timer restarts or rechecks discovery before the test is long over.
    static func eventsOnly(_ settings: inout FleetSettings) {
        settings.discoveryRefresh = .seconds(3600)
        settings.discoveryCheck = .seconds(3600)
    }

    /// bluetoothd is gone when the daemon starts and comes 4 s later (boot order, or an
    /// `apt upgrade` restarting it): the never-seen bike is discovered and connected once
    /// org.bluez is there, not after the next pause.
    @Test func findsMachinesWhenBluetoothdAppearsAfterTheDaemon() async throws {
        let rig = try await FleetRig(simulator: ["--bikes", "1", "--rate", "4", "--fault", "restart=0:4000"], configure: Self.eventsOnly)
        try await rig.start()
        try await Task.sleep(for: .seconds(1))
        // Nothing is found while bluetoothd is away: whatever the fleet reports came after it
        // did (read in this order, the simulator has logged its return by then; a loaded
        // machine may well be past the 4 s already).
        let early = await rig.statuses()
        #expect(early.isEmpty || rig.sim.log.contains("bluetoothd back"), "\(early)")
        let ready = try await eventually(.seconds(60)) { await Self.machineReady(rig) }
        let seen = await rig.statuses()
        #expect(ready, "\(seen)")
        await rig.stop()
    }

    /// bluetoothd accepts StartDiscovery and the adapter does not scan (its session dropped
    /// unseen): the fleet sees `Discovering` stay false and starts discovery there again, so
    /// the never-seen bike is found after the check (1 s here), not after the refresh (60 s).
    @Test func startsDiscoveryAgainWhenTheAdapterDoesNotScan() async throws {
        let rig = try await FleetRig(simulator: ["--bikes", "1", "--rate", "4", "--fault", "deaf-discovery=1"]) { settings in
            Self.eventsOnly(&settings)
            settings.discoveryCheck = .seconds(1)
        }
        try await rig.start()
        let ready = try await eventually(.seconds(60)) { await Self.machineReady(rig) }
        let seen = await rig.statuses()
        #expect(ready, "\(seen)")
        #expect(rig.sim.log.contains("does not scan (injected)"), "the fault never fired")
        await rig.stop()
    }

    /// bluetoothd restarts under two machines, each heard through its own adapter (the VM's
    /// gateway, one link per adapter). As 5.66 does, it reloads the machines it connected to
    /// with their GATT services as UUIDs (no 0xFE01, which their advertisements never add
    /// back) and brings the adapters back unpowered, powering them one by one while the fleet
    /// and both supervisors already look. Both machines come back with no timer's help (the
    /// fleet's check of a silent adapter is an hour here). Before, the filter refused the
    /// reloaded machines for good (the VM: over 2 minutes, then gave up), and only the first
    /// holder of discovery started it.
    @Test func bothMachinesComeBackAfterABluetoothdRestart() async throws {
        let rig = try await FleetRig(
            simulator: ["--adapters", "2", "--visible-on", "one", "--bikes", "2", "--rate", "4"], maxPerAdapter: 1, configure: Self.eventsOnly)
        try await rig.start()
        let names = ["SF-Bike-0001", "SF-Bike-0002"]
        #expect(try await eventually(.seconds(60)) { await rig.statuses().values.filter { $0.state == .ready }.count == 2 })
        // Restarted once both are ready (as `restart=AFTER:300` does, at the moment the test chooses).
        try await rig.sim.mock("RestartBluetoothd", [.uint32(300)])
        #expect(try await eventually(.seconds(60)) { await rig.statuses().values.contains { $0.state != .ready } })
        var back = true
        for name in names { back = try await eventually(.seconds(60)) { await Self.machineReady(rig, name) } && back }
        let seen = await rig.statuses()
        #expect(back, "\(seen)")
        #expect(rig.sim.log.contains("bluetoothd back"), "the restart never happened")
        await rig.stop()
    }

    /// The adapter is powered off while the bike is switched on, and on again later: the
    /// adapter coming back starts discovery on it (no timer would before the wait gives up).
    @Test func findsMachinesWhenTheAdapterIsPoweredOn() async throws {
        let rig = try await FleetRig(simulator: ["--bikes", "1", "--rate", "4"], configure: Self.eventsOnly)
        try await rig.sim.mock("SetPowered", [.string("hci0"), .bool(false)])
        try await rig.start()
        try await Task.sleep(for: .seconds(2))
        #expect(await rig.statuses().isEmpty)
        try await rig.sim.mock("SetPowered", [.string("hci0"), .bool(true)])
        let ready = try await eventually(.seconds(60)) { await Self.machineReady(rig) }
        let seen = await rig.statuses()
        #expect(ready, "\(seen)")
        await rig.stop()
    }

    /// A bike nobody has switched on is silent for 11 s, longer than any single search
    /// window; switched on, it is found on its first advertisement (discovery is never
    /// restarted by a timer here).
    @Test func findsAMachineSwitchedOnLater() async throws {
        let rig = try await FleetRig(simulator: ["--bikes", "1", "--rate", "4", "--fault", "switch-on=11000"], configure: Self.eventsOnly)
        try await rig.start()
        let ready = try await eventually(.seconds(90)) { await Self.machineReady(rig) }
        let seen = await rig.statuses()
        #expect(ready, "\(seen)")
        await rig.stop()
    }

    /// A known bike falls asleep mid-ride and wakes 6 s later. Its reconnect backoff is an
    /// hour here, so only its advertisement can bring it back: it does, and its session
    /// carries on (the idle end is 2 s; the grace is an hour here, so that a machine slowed by
    /// other work does not end the session meanwhile).
    @Test func aKnownMachineThatWakesReconnectsOnItsFirstAdvertisement() async throws {
        var rules = FleetRig.rules
        rules.disconnectGrace = .seconds(3600)
        let rig = try await FleetRig(simulator: ["--bikes", "1", "--rate", "4", "--known"], rules: rules) { settings in
            Self.eventsOnly(&settings)
            settings.reconnectBackoff = Backoff(initial: .seconds(3600), maximum: .seconds(3600))
        }
        try await rig.start()
        #expect(try await eventually(.seconds(60)) { await rig.statuses()["SF-Bike-0001"]?.sessionID != nil })
        let session = await rig.statuses()["SF-Bike-0001"]?.sessionID
        // Asleep mid-ride (as `sleep=AFTER:6000` does, once the ride has begun): silent for
        // longer than the fleet's wake threshold (5 s), then awake again.
        try await rig.sim.mock("SetAsleep", [.string(rig.device("SF-Bike-0001")), .bool(true)])
        #expect(try await eventually(.seconds(60)) { await rig.statuses()["SF-Bike-0001"]?.state == .disconnected })
        try await Task.sleep(for: .seconds(6))
        try await rig.sim.mock("SetAsleep", [.string(rig.device("SF-Bike-0001")), .bool(false)])
        let back = try await eventually(.seconds(60)) { await Self.machineReady(rig) }
        let seen = await rig.statuses()
        #expect(back, "\(seen)")
        #expect(try await eventually(.seconds(60)) { await rig.statuses()["SF-Bike-0001"]?.sessionID == session })
        await rig.stop()
    }

    /// The gateway is down for 5 s mid-ride, longer than the idle end (2 s) and within the
    /// grace (30 s): the restored session carries on, under the same id, and what the
    /// machine rode meanwhile is part of it.
    @Test func aRideSurvivesTheGatewayBeingDownLongerThanTheIdleEnd() async throws {
        // The rider rides on while the gateway is down, as a real machine's counters do.
        let rig = try await FleetRig(simulator: ["--bikes", "1", "--rate", "4", "--known", "--ride-on"])
        try await rig.start()
        #expect(try await eventually(.seconds(10)) { await rig.statuses()["SF-Bike-0001"]?.sessionID != nil })
        let session = await rig.statuses()["SF-Bike-0001"]?.sessionID
        try await Task.sleep(for: .seconds(2))
        await rig.stopFleet()
        try await Task.sleep(for: .seconds(5))
        let again = try await FleetRig(simulator: [], directory: rig.directory, bus: rig.bus, reuse: rig.sim)
        try await again.start(restoring: true)
        #expect(try await eventually(.seconds(10)) { await again.statuses()["SF-Bike-0001"]?.sessionID != nil })
        #expect(await again.statuses()["SF-Bike-0001"]?.sessionID == session)
        try await Task.sleep(for: .seconds(2))
        try await again.stopRiding("SF-Bike-0001")
        #expect(try await eventually(.seconds(15)) { (try? await again.store.counts().pending) == 1 })
        let stored = try await again.store.sessions(status: .pending)
        #expect(stored.map(\.sessionID) == [session].compactMap { $0 })
        // Ridden ~9 s (2 + 5 down + 2), not the 4 s the gateway saw: the gap counted.
        let duration = stored.first?.duration ?? 0
        #expect(duration >= 8, "\(stored)")
        await again.stop()
        try? rig.store.close()
    }
}

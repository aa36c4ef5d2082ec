import BlueZ
import BlueZTesting
import DBus
import FTMS
import Foundation
import Testing
import RetryTiming
import TestSupport

/// ``MachineSupervisor`` against the dbusmock BlueZ: every fault ends in a ready link again,
/// within the backoff bound, without restarting anything.
@Suite("Reconnection against the dbusmock BlueZ", .serialized)
struct ReconnectTests {
    /// Short steps so a test sees several attempts; the bound is what recovery is held to.
    static let backoff = Backoff(initial: .milliseconds(100), maximum: .milliseconds(800))
    static let bound = Duration.milliseconds(800)

    /// A supervisor running in its own task, with its events logged as they come.
    actor Running {
        let supervisor: MachineSupervisor
        private var task: Task<Void, Never>?
        private var reader: Task<Void, Never>?
        private var log: [SupervisorEvent] = []
        private var cursor = 0

        init(_ supervisor: MachineSupervisor) {
            self.supervisor = supervisor
        }

        func start() {
            let supervisor = supervisor
            task = Task { await supervisor.run() }
            reader = Task {
                for await event in supervisor.events { self.append(event) }
            }
        }

        private func append(_ event: SupervisorEvent) {
            log.append(event)
        }

        /// Events since the last call up to and including the first that `stop` accepts;
        /// records an issue and throws after `timeout`.
        func until(timeout: Duration = .seconds(15), _ stop: @Sendable (SupervisorEvent) -> Bool) async throws -> [SupervisorEvent] {
            let deadline = ContinuousClock.now + timeout
            while true {
                if let index = log[cursor...].firstIndex(where: stop) {
                    defer { cursor = index + 1 }
                    return Array(log[cursor...index])
                }
                guard ContinuousClock.now < deadline else {
                    Issue.record("no matching event within \(timeout); saw \(log[cursor...])")
                    throw CancellationError()
                }
                try await Task.sleep(for: .milliseconds(5))
            }
        }

        func stop() async {
            task?.cancel()
            await task?.value
            await reader?.value
        }
    }

    static func isReady(_ event: SupervisorEvent) -> Bool {
        if case .ready = event { return true }
        return false
    }

    func supervise(_ rig: FakeRig, timing: MachineSupervisor.Timing = .init()) async -> Running {
        await run(MachineSupervisor(client: rig.client, target: MachineTarget("SF-Bike-0001"), backoff: Self.backoff, timing: timing))
    }

    func run(_ supervisor: MachineSupervisor) async -> Running {
        let running = Running(supervisor)
        await running.start()
        return running
    }

    func notify(_ rig: FakeRig, power: Int32) async throws {
        var values = FieldValues()
        values.set(.instantaneousPower, raw: power)
        let frame = DataRecord(kind: .indoorBikeData, values: values).encoded()
        try await rig.fake.mock("NotifyValue", [.string(try await rig.gattPath("2ad2")), .string(Hex.string(frame))])
    }

    static func power(_ event: SupervisorEvent) -> Double? {
        guard case .notification(.indoorBikeData, let value) = event else { return nil }
        return value.withUnsafeBytes { DataRecord(kind: .indoorBikeData, decoding: $0) }.values.value(.instantaneousPower)
    }

    @Test func aLinkDropMidStreamReconnectsAndStreamsAgain() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        let running = await supervise(rig)
        _ = try await running.until(Self.isReady)
        try await notify(rig, power: 111)
        #expect(try await running.until { Self.power($0) != nil }.compactMap(Self.power) == [111])

        try await rig.fake.mock("DisconnectDevice", [.string("hci0"), .string(FakeRig.address)])
        let events = try await running.until(Self.isReady)
        #expect(events.contains { if case .disconnected(let reason) = $0 { reason == "the link dropped" } else { false } })
        // The wait before reconnecting is within the bound (the connect sequence itself takes
        // what the machine it runs on gives it).
        #expect(events.allSatisfy { if case .retrying(let delay, _) = $0 { delay <= Self.bound } else { true } })
        // Control was asked for again on the new link, and frames flow again.
        try await notify(rig, power: 222)
        #expect(try await running.until { Self.power($0) != nil }.compactMap(Self.power) == [222])
        #expect(await running.supervisor.target == MachineTarget(name: "SF-Bike-0001", address: FakeRig.address))
        await running.stop()
        #expect(await rig.client.pendingWaits == 0)
    }

    @Test func stoppingAReadySupervisorDisconnectsTheMachine() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        let running = await supervise(rig)
        _ = try await running.until(Self.isReady)
        #expect(await rig.client.tree.properties(rig.device, BlueZNames.device)?["Connected"]?.bool == true)
        await running.stop()
        let device = rig.device
        let released = await rig.client.wait(until: { $0.properties(device, BlueZNames.device)?["Connected"]?.bool == false }, timeout: .seconds(5))
        #expect(released, "a stopped supervisor left the machine connected")
    }

    /// A daemon told to stop while a machine that is gone holds a Connect open (bluetoothd
    /// answers only at its page timeout) must not wait that out: the Connect is abandoned, and
    /// the Disconnect that follows cancels it in BlueZ, so the machine is free at once.
    @Test func stoppingMidConnectAbandonsTheConnect() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        try await rig.fake.mock("SetConnectBehaviour", [.string(rig.device), .string("hang"), .uint32(0), .uint32(0)])
        // The Connect's own timeout is an hour: only abandoning it ends the stop before the
        // group's timeout.
        let running = await supervise(rig, timing: .init(connect: .seconds(3600)))
        _ = try await running.until { if case .connecting = $0 { true } else { false } }
        // `.connecting` goes out just before the call: wait until the call is on the bus.
        try await waitUntil("the Connect on the bus") { await rig.connection.outstandingCalls() > 0 }
        await running.stop()
        #expect(await rig.connection.outstandingCalls() == 0, "the abandoned Connect is still tracked")
        try await rig.fake.mock("SetConnectBehaviour", [.string(rig.device), .string("ok"), .uint32(0), .uint32(0)])
        let next = await supervise(rig)
        _ = try await next.until(Self.isReady)
        await next.stop()
    }

    @Test func aConnectAbortIsRetriedUntilItWorks() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        try await rig.fake.mock("SetConnectBehaviour", [.string(rig.device), .string("abort"), .uint32(0), .uint32(0)])
        let running = await supervise(rig)
        let failures = try await running.until {
            if case .retrying(_, let reason) = $0 { reason.contains("le-connection-abort-by-local") } else { false }
        }
        #expect(!failures.contains(where: Self.isReady))
        try await rig.fake.mock("SetConnectBehaviour", [.string(rig.device), .string("ok"), .uint32(0), .uint32(0)])
        let events = try await running.until(Self.isReady)
        let delays = events.compactMap { if case .retrying(let delay, _) = $0 { delay } else { nil } }
        #expect(delays.allSatisfy { $0 <= Self.bound })
        await running.stop()
    }

    @Test func servicesThatNeverResolveAreRetried() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        try await rig.fake.mock("SetConnectBehaviour", [.string(rig.device), .string("no-resolve"), .uint32(0), .uint32(0)])
        let running = await supervise(rig, timing: .init(resolve: .milliseconds(300)))
        _ = try await running.until {
            if case .retrying(_, let reason) = $0 { reason == "\(LinkError.servicesNeverResolved)" } else { false }
        }
        try await rig.fake.mock("SetConnectBehaviour", [.string(rig.device), .string("ok"), .uint32(0), .uint32(0)])
        _ = try await running.until(Self.isReady)
        await running.stop()
    }

    @Test func aBluetoothdRestartMidStreamIsSurvived() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        let running = await supervise(rig)
        _ = try await running.until(Self.isReady)
        try await notify(rig, power: 100)
        _ = try await running.until { Self.power($0) != nil }

        // bluetoothd dies: org.bluez loses its owner and every object goes.
        rig.fake.kill()
        let lost = try await running.until {
            if case .disconnected(let reason) = $0 { reason == "bluetoothd restarted" || reason == "the machine vanished" } else { false }
        }
        #expect(!lost.isEmpty)
        // It comes back with the adapter and the machine (as advertising brings it back).
        let restarted = try await FakeBlueZ(bus: rig.bus)
        defer { restarted.stop() }
        try await restarted.addAdapter("hci0")
        let device = try await restarted.addMachine(address: FakeRig.address, name: "SF-Bike-0001", kind: "bike")
        _ = try await running.until(Self.isReady)
        let paths = try await restarted.mock("GetGattPaths", [.string(device)]).first?.stringDictionary ?? [:]
        var values = FieldValues()
        values.set(.instantaneousPower, raw: 300)
        let frame = DataRecord(kind: .indoorBikeData, values: values).encoded()
        try await restarted.mock("NotifyValue", [.string(paths["2ad2"]?.string ?? ""), .string(Hex.string(frame))])
        #expect(try await running.until { Self.power($0) != nil }.compactMap(Self.power) == [300])
        await running.stop()
    }

    @Test func anAdapterUnpluggedAndBackIsSurvived() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        let running = await supervise(rig)
        _ = try await running.until(Self.isReady)
        try await rig.fake.mock("RemoveAdapterWithDevices", [.string("hci0")])
        _ = try await running.until {
            if case .disconnected(let reason) = $0 { reason == "the machine vanished" } else { false }
        }
        // No adapter: attempts fail clearly and keep coming, within the bound.
        let failing = try await running.until {
            if case .retrying(_, let reason) = $0 { reason == "\(BlueZError.noAdapter)" } else { false }
        }
        #expect(!failing.contains(where: Self.isReady))
        try await rig.fake.addAdapter("hci0")
        try await rig.fake.addMachine(address: FakeRig.address, name: "SF-Bike-0001", kind: "bike")
        _ = try await running.until(Self.isReady)
        await running.stop()
    }

    /// No adapter (bluetoothd restarting: it owns its name before its adapters are registered)
    /// is not the machine failing: the supervisor tries again the moment an adapter appears,
    /// not after a backoff pause. Its clock never moves here, so a pause would never end.
    @Test func withNoAdapterTheNextAttemptComesWhenOneAppears() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        try await rig.fake.mock("RemoveAdapterWithDevices", [.string("hci0")])
        let connection = try await DBusConnection.connect(address: rig.bus.address)
        defer { connection.close() }
        let client = BlueZClient(connection: connection, clock: ManualClock())
        try await client.start()
        #expect(await client.adapters.isEmpty)
        let running = await run(MachineSupervisor(client: client, target: MachineTarget("SF-Bike-0001"), backoff: Self.backoff))
        _ = try await running.until {
            if case .retrying(_, let reason) = $0 { reason == "\(BlueZError.noAdapter)" } else { false }
        }
        try await rig.fake.addAdapter("hci0")
        try await rig.fake.addMachine(address: FakeRig.address, name: "SF-Bike-0001", kind: "bike")
        let events = try await running.until(Self.isReady)
        #expect(events.contains {
            if case .connecting(_, let attempt) = $0 { attempt == 1 } else { false }
        }, "attempts without an adapter are not counted: \(events)")
        await running.stop()
    }

    @Test func aMachineNotYetInRangeIsFoundByDiscovery() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        // Nothing called SF-Rower-0002 exists yet; discovery runs until it appears.
        let running = await run(MachineSupervisor(
            client: rig.client, target: MachineTarget("SF-Rower-0002"), backoff: Self.backoff,
            timing: .init(locate: .milliseconds(500))))
        _ = try await running.until {
            if case .retrying(_, let reason) = $0 { reason.contains("SF-Rower-0002") } else { false }
        }
        try await rig.fake.mock("SetDiscoveryFailures", [.string("hci0"), .uint32(2)])
        try await rig.fake.addMachine(address: "C0:11:22:33:44:02", name: "SF-Rower-0002", kind: "rower")
        let events = try await running.until(Self.isReady)
        guard case .ready(let info)? = events.last else { return }
        #expect(info.type == .rower)
        await running.stop()
    }

    @Test func aNameWithoutFE01IsNeverConnected() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        try await rig.fake.addNameOnlyDevice(address: "C0:11:22:33:44:09", name: "SF-Bike-0009")
        let running = await run(MachineSupervisor(
            client: rig.client, target: MachineTarget("SF-Bike-0009"), backoff: Self.backoff,
            timing: .init(locate: .milliseconds(300))))
        let events = try await running.until {
            if case .retrying = $0 { true } else { false }
        }
        #expect(!events.contains { if case .connecting = $0 { true } else { false } })
        await running.stop()
    }

    @Test func badlyTypedPropertiesNeitherCrashNorConfuse() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        let running = await supervise(rig)
        _ = try await running.until(Self.isReady)
        // RSSI as a string and Name as a number: a broken or hostile BlueZ. The link stays up.
        _ = try await rig.fake.control.call(
            destination: "org.bluez", path: rig.device, interface: "org.freedesktop.DBus.Mock", member: "UpdateProperties",
            arguments: [.string("org.bluez.Device1"), .properties(["RSSI": .string("strong"), "Name": .uint32(7)])],
            timeout: .seconds(5))
        await rig.client.sync()
        try await notify(rig, power: 42)
        #expect(try await running.until { Self.power($0) != nil }.compactMap(Self.power) == [42])
        let listed = await rig.client.machines(passing: MachineFilter(namePatterns: [], addresses: [FakeRig.address]))
        #expect(listed.map(\.rssi) == [nil])
        await running.stop()
    }

    @Test func commandsGoThroughTheLiveLinkAndFailClearlyWithoutOne() async throws {
        let rig = try await FakeRig()
        defer { rig.stop() }
        let running = await supervise(rig)
        await #expect(throws: LinkError.self) { _ = try await running.supervisor.send(.start) }
        _ = try await running.until(Self.isReady)
        #expect(try await running.supervisor.send(.resistance(10)).succeeded)
        await running.stop()
    }
}

import BlueZ
import BlueZTesting
import DBus
import FTMS
import Simulator
import TestSupport
import Testing

/// One gym floor heard by several gateways: each gateway its own private dbus-daemon and its
/// own simulated bluetoothd, all of them in one ``SharedAir``.
@Suite("Shared air: one machine, several gateways' buses")
struct SharedAirTests {
    /// One gateway: a real dbus-daemon, a simulator on it in the shared air, our client.
    struct Gateway {
        let bus: PrivateBus
        let simulator: BlueZSimulator
        let connection: DBusConnection
        let client: BlueZClient
        let device = "/org/bluez/hci0/dev_C0_5F_00_00_00_01"

        static func start(_ air: SharedAir, rssi: Int, seed: UInt64 = 5, known: Bool = false) async throws -> Gateway {
            var configuration = SimulatorConfiguration.gym(bikes: 1, rate: 20, seed: seed, known: known)
            configuration.machines[0].rssi = rssi
            configuration.timing.connectUnanswered = .milliseconds(100)
            configuration.timing.temporaryTimeout = .milliseconds(600)
            let bus = try PrivateBus()
            let simulator = BlueZSimulator(configuration: configuration, busAddress: bus.address, air: air)
            do {
                try await simulator.start()
                let connection = try await DBusConnection.connect(address: bus.address)
                let client = BlueZClient(connection: connection)
                try await client.start()
                return Gateway(bus: bus, simulator: simulator, connection: connection, client: client)
            } catch {
                await simulator.stop()
                bus.stop()
                throw error
            }
        }

        func stop() async {
            connection.close()
            await simulator.stop()
            bus.stop()
        }

        /// Scans until this gateway's bluetoothd lists the bike; its RSSI then.
        func discover() async throws -> Int? {
            let client = client
            let device = device
            try await waitUntil("the bike discovered") {
                _ = try? await client.scan(for: .milliseconds(200), filter: MachineFilter())
                return await client.tree.properties(device, "org.bluez.Device1")?["RSSI"] != nil
            }
            return await client.tree.properties(device, "org.bluez.Device1")?["RSSI"]?.integer
        }

        func connectedLink() async throws -> MachineLink {
            _ = try await discover()
            let link = MachineLink(client: client, device: device)
            _ = try await link.connect(timeout: .seconds(5), resolveTimeout: .seconds(5))
            return link
        }

        /// Connect as any client calls it; the D-Bus error it ends with, nil on success.
        func connectFailure() async -> DBusError? {
            do {
                _ = try await connection.call(destination: "org.bluez", path: device, interface: "org.bluez.Device1", member: "Connect", timeout: .seconds(5))
                return nil
            } catch let error as DBusError {
                return error
            } catch {
                return .unexpectedReply("\(error)")
            }
        }
    }

    /// The first `count` data frames a link delivers.
    static func frames(_ link: MachineLink, _ count: Int) async -> [[UInt8]] {
        var received: [[UInt8]] = []
        for await (source, value) in await link.notifications() where source == .indoorBikeData {
            received.append(value)
            if received.count == count { break }
        }
        return received
    }

    @Test func twoBusesHearOneMachineEachWithItsOwnSignal() async throws {
        let air = SharedAir()
        let near = try await Gateway.start(air, rssi: -45)
        let far = try await Gateway.start(air, rssi: -85)
        // Noise is ±10 dB around each adapter's own level.
        let nearRSSI = try await near.discover()
        let farRSSI = try await far.discover()
        await near.stop()
        await far.stop()
        #expect(nearRSSI.map { (-55 ... -35).contains($0) } == true, "\(String(describing: nearRSSI))")
        #expect(farRSSI.map { (-95 ... -75).contains($0) } == true, "\(String(describing: farRSSI))")
    }

    /// While gateway A holds the bike, B's Connect fails as 5.66 fails an LE connect that the
    /// peripheral never answers, and C's bluetoothd, scanning and no longer hearing it, drops
    /// it after its TemporaryTimeout. When A disconnects the bike advertises again to both.
    @Test func aSecondCentralIsRefusedUntilTheFirstLetsGo() async throws {
        let air = SharedAir()
        let a = try await Gateway.start(air, rssi: -50)
        let b = try await Gateway.start(air, rssi: -70, known: true)
        let c = try await Gateway.start(air, rssi: -60)
        _ = try await c.discover()
        let link = try await a.connectedLink()
        let refused = await b.connectFailure()
        #expect(refused?.remoteName == "org.bluez.Error.Failed")
        #expect("\(refused.map { "\($0)" } ?? "")".contains("le-connection-abort-by-local"), "\(String(describing: refused))")
        #expect(air.holders(of: "C0:5F:00:00:00:01") == [a.bus.address + " /org/bluez/hci0"])
        let device = c.device
        let client = c.client
        let gone = try await eventually {
            _ = try? await client.scan(for: .milliseconds(200), filter: MachineFilter())
            return await client.tree.properties(device, "org.bluez.Device1") == nil
        }
        #expect(gone)
        await link.disconnect()
        #expect(air.holders(of: "C0:5F:00:00:00:01").isEmpty)
        _ = try await c.discover()
        let second = try await b.connectedLink()
        await second.disconnect()
        for gateway in [a, b, c] { await gateway.stop() }
    }

    /// Known answer: the frames B gets after A had the bike are the same rider's, continuing
    /// where A's left off (the seeded model's sequence, later in it), not a restart.
    @Test func countersRunOnFromOneCentralToTheNext() async throws {
        let air = SharedAir()
        let a = try await Gateway.start(air, rssi: -50, seed: 11)
        let b = try await Gateway.start(air, rssi: -70, seed: 11)
        let first = try await a.connectedLink()
        let onA = await Self.frames(first, 10)
        await first.disconnect()
        let second = try await b.connectedLink()
        let onB = await Self.frames(second, 10)
        await second.disconnect()
        await a.stop()
        await b.stop()
        let spec = SimulatorConfiguration.gym(bikes: 1, rate: 20, seed: 11).machines[0]
        var model = RiderModel(type: .bike, seed: spec.seed)
        let expected = (0..<400).compactMap { _ in model.nextFrame(after: .seconds(1 / 20.0)) }
        #expect(Array(expected.prefix(10)) == onA)
        let offset = try #require(expected.firstIndex(of: onB.first ?? []), "B's first frame is not the rider's")
        #expect(offset >= 10, "B started the ride again")
        #expect(Array(expected[offset..<min(offset + 10, expected.count)]) == onB)
        let distance = { (frame: [UInt8]) in DataRecord(kind: .indoorBikeData, decoding: frame).values.value(.totalDistance) ?? -1 }
        #expect(distance(onB[0]) >= distance(onA[9]) && distance(onA[9]) > 0)
    }

    /// A's bus going away (its gateway's dbus-daemon, or the box, dying) frees the bike.
    @Test func aDeadBusLetsTheMachineGo() async throws {
        let air = SharedAir()
        let a = try await Gateway.start(air, rssi: -50)
        let b = try await Gateway.start(air, rssi: -70)
        _ = try await a.connectedLink()
        #expect(await b.connectFailure() != nil)
        a.bus.stop()
        #expect(await a.simulator.finished() != .stopped)
        #expect(air.holders(of: "C0:5F:00:00:00:01").isEmpty)
        let link = try await b.connectedLink()
        await link.disconnect()
        a.connection.close()
        await b.stop()
    }

    /// A's adapter powered off (its dongle dying) drops A's link and frees the bike.
    @Test func aPoweredOffAdapterLetsTheMachineGo() async throws {
        let air = SharedAir()
        let a = try await Gateway.start(air, rssi: -50)
        let b = try await Gateway.start(air, rssi: -70, known: true)
        _ = try await a.connectedLink()
        #expect(await b.connectFailure() != nil)
        _ = try await a.connection.call(
            destination: "org.bluez", path: "/org/bluez/hci0", interface: "org.freedesktop.DBus.Properties", member: "Set",
            arguments: [.string("org.bluez.Adapter1"), .string("Powered"), .variant(.bool(false))], timeout: .seconds(5))
        #expect(air.holders(of: "C0:5F:00:00:00:01").isEmpty)
        #expect(await b.connectFailure() == nil)
        await a.stop()
        await b.stop()
    }

    /// The same from one `ftms-sim` process serving two buses (`--also-bus`): B is refused
    /// while A holds the bike, and connects once A disconnected.
    @Test func oneProcessServesTwoBuses() async throws {
        let busA = try PrivateBus()
        let busB = try PrivateBus()
        defer { busB.stop() }
        let simulator = try await SimulatedBlueZ(bus: busA, arguments: ["--also-bus", busB.address, "--bikes", "1", "--known", "--rate", "0"])
        defer { simulator.stop() }
        let onA = try await DBusConnection.connect(address: busA.address)
        let onB = try await DBusConnection.connect(address: busB.address)
        defer { onB.close() }
        let device = "/org/bluez/hci0/dev_C0_5F_00_00_00_01"
        func connect(_ connection: DBusConnection) async -> String? {
            do {
                _ = try await connection.call(destination: "org.bluez", path: device, interface: "org.bluez.Device1", member: "Connect", timeout: .seconds(10))
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(await connect(onA) == nil)
        let refused = await connect(onB)
        #expect(refused?.contains("le-connection-abort-by-local") == true, "\(String(describing: refused))")
        _ = try await onA.call(destination: "org.bluez", path: device, interface: "org.bluez.Device1", member: "Disconnect", timeout: .seconds(10))
        #expect(await connect(onB) == nil, "\(simulator.log.suffix(1500))")
        onA.close()
        busA.stop()
    }

    /// A machine that takes two centrals takes them both, and a third is refused.
    @Test func maxCentralsTwoTakesBoth() async throws {
        let air = SharedAir(maxCentrals: 2)
        let a = try await Gateway.start(air, rssi: -50)
        let b = try await Gateway.start(air, rssi: -70)
        let c = try await Gateway.start(air, rssi: -80, known: true)
        let first = try await a.connectedLink()
        let second = try await b.connectedLink()
        #expect(air.holders(of: "C0:5F:00:00:00:01").count == 2)
        #expect(await c.connectFailure() != nil)
        await first.disconnect()
        await second.disconnect()
        for gateway in [a, b, c] { await gateway.stop() }
    }
}

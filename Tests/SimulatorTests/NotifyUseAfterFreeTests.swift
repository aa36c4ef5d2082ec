import BlueZ
import BlueZTesting
import TestSupport
import DBus
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension SimulatorProcessTests {
    /// `--fault notify-uaf`, bluetoothd 5.66's use-after-free (docs/bluez.md "Giving acquired
    /// sockets back"): a client that disconnects the device or leaves the bus before bluetoothd
    /// has handled the hang-up of one of its acquired sockets crashes it. The hang-up is handled
    /// a while after the close (`notify-uaf=HANGUP_MS`), after later calls were answered, so a
    /// round trip proves nothing; `NotifyAcquired` going false does. And the link waits for it.
    @Suite("notify-uaf: 5.66's crash on a client leaving with acquired sockets")
    struct NotifyUseAfterFreeTests {
        private static let characteristic = "org.bluez.GattCharacteristic1"
        private static let arguments = ["--bikes", "1", "--known", "--rate", "20", "--fault", "notify-uaf"]

        /// A second client, connected and holding the bike's data socket: what it does next is the test.
        private struct Holder {
            let connection: DBusConnection
            let descriptor: DBusFileDescriptor
            let device: String
            let data: String

            static func acquiring(_ rig: SimulatorRig) async throws -> Holder {
                let device = try rig.device("SF-Bike-0001")
                let data = try #require(try await rig.simulator.gattPaths(device)["2ad2"])
                let connection = try await DBusConnection.connect(address: rig.bus.address)
                _ = try await connection.call(destination: "org.bluez", path: device, interface: "org.bluez.Device1", member: "Connect", timeout: .seconds(10))
                _ = try await waitFor("services resolved") { () -> Bool? in
                    let value = try? await connection.call(
                        destination: "org.bluez", path: device, interface: "org.freedesktop.DBus.Properties", member: "Get",
                        arguments: [.string("org.bluez.Device1"), .string("ServicesResolved")], timeout: .seconds(5))
                    return value?.first?.bool == true ? true : nil
                }
                let reply = try await connection.call(
                    destination: "org.bluez", path: data, interface: NotifyUseAfterFreeTests.characteristic, member: "AcquireNotify",
                    arguments: [.properties([:])], timeout: .seconds(5))
                return Holder(connection: connection, descriptor: try #require(reply.first?.fileDescriptor), device: device, data: data)
            }

            func closeSocket() {
                if let number = descriptor.take() { _ = Glibc.close(number) }
            }

            /// One call bluetoothd answers from its main loop.
            func roundTrip() async throws {
                _ = try await connection.call(
                    destination: "org.bluez", path: device, interface: "org.freedesktop.DBus.Properties", member: "Get",
                    arguments: [.string("org.bluez.Device1"), .string("Connected")], timeout: .seconds(5))
            }

            /// What bluetoothd says of the data characteristic's `NotifyAcquired` now.
            func notifyAcquired() async throws -> Bool? {
                try await connection.call(
                    destination: "org.bluez", path: data, interface: "org.freedesktop.DBus.Properties", member: "Get",
                    arguments: [.string(NotifyUseAfterFreeTests.characteristic), .string("NotifyAcquired")], timeout: .seconds(5)
                ).first?.bool
            }

            func disconnect() async throws {
                _ = try await connection.call(destination: "org.bluez", path: device, interface: "org.bluez.Device1", member: "Disconnect", timeout: .seconds(10))
            }
        }

        @Test func leavingTheBusWithTheSocketOpenCrashesIt() async throws {
            let rig = try await SimulatorRig.start(Self.arguments)
            defer { rig.stop() }
            let holder = try await Holder.acquiring(rig)
            holder.connection.close()
            let crash = try await rig.simulator.crash(whenLeaving: holder.connection.uniqueName)
            #expect(crash?.contains("\(holder.connection.uniqueName) left the bus while bluetoothd still held its acquired notify socket of \(holder.data)") == true, "\(rig.simulator.log.suffix(800))")
            // Gone as a crashed bluetoothd goes: exit status 139, the name released.
            #expect(await rig.simulator.waitForExit(within: .seconds(20)) == 139)
            _ = holder
        }

        /// Disconnecting while the socket is still open: the Disconnect is never answered and
        /// bluetoothd is gone. (Closing and disconnecting at once is the same race in 5.66, but
        /// which side wins depends on what else bluetoothd's main loop handles in between: the
        /// simulator's 20 Hz notifications find the closed socket first on a loaded box, so
        /// the test holds the socket open to make the losing side certain.)
        @Test func disconnectingWithTheSocketOpenCrashesIt() async throws {
            let rig = try await SimulatorRig.start(Self.arguments)
            defer { rig.stop() }
            let holder = try await Holder.acquiring(rig)
            await #expect(throws: DBusError.self) { try await holder.disconnect() }
            #expect(rig.simulator.log.contains("\(holder.connection.uniqueName) disconnected SF-Bike-0001 while bluetoothd still held its acquired notify socket"), "\(rig.simulator.log.suffix(800))")
            #expect(await rig.simulator.waitForExit(within: .seconds(20)) == 139)
            holder.closeSocket()
            holder.connection.close()
        }

        /// The order the bridge kept before: close, one round trip, Disconnect. The round trip is
        /// answered while bluetoothd still holds the socket (NotifyAcquired still true), so the
        /// Disconnect crashes it, as in the VM under load. (A long hang-up delay, so that the
        /// losing side is certain on any box.)
        @Test func closingThenARoundTripThenDisconnectingCrashesIt() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known", "--rate", "20", "--fault", "notify-uaf=10000"])
            defer { rig.stop() }
            let holder = try await Holder.acquiring(rig)
            holder.closeSocket()
            try await holder.roundTrip()
            #expect(try await holder.notifyAcquired() == true)
            await #expect(throws: DBusError.self) { try await holder.disconnect() }
            #expect(rig.simulator.log.contains("\(holder.connection.uniqueName) disconnected SF-Bike-0001 while bluetoothd still held its acquired notify socket"), "\(rig.simulator.log.suffix(800))")
            #expect(await rig.simulator.waitForExit(within: .seconds(20)) == 139)
            holder.connection.close()
        }

        /// The order the bridge keeps: close, wait until bluetoothd says NotifyAcquired=false
        /// (its hang-up handled), Disconnect, leave. bluetoothd is still there.
        @Test func closingThenWaitingForNotifyAcquiredFalseThenDisconnectingIsSafe() async throws {
            let rig = try await SimulatorRig.start(Self.arguments)
            defer { rig.stop() }
            let holder = try await Holder.acquiring(rig)
            holder.closeSocket()
            _ = try await waitFor("NotifyAcquired=false") { () -> Bool? in
                try await holder.notifyAcquired() == false ? true : nil
            }
            try await holder.disconnect()
            holder.connection.close()
            #expect(try await rig.simulator.crash(whenLeaving: holder.connection.uniqueName) == nil)
            #expect(rig.simulator.log.contains("notify released \(holder.data): its client closed the socket"))
            // Still serving: another client connects the bike.
            _ = try await rig.connectedLink("SF-Bike-0001")
        }

        /// A link's disconnect() gives its acquired sockets back before the Disconnect, and
        /// after it the client leaves the bus with bluetoothd whole.
        @Test func aLinkGivesItsSocketsBackBeforeItDisconnects() async throws {
            let rig = try await SimulatorRig.start(Self.arguments)
            defer { rig.stop() }
            let link = try await rig.connectedLink("SF-Bike-0001")
            #expect(await link.info?.notifyPaths[.indoorBikeData] == .acquired(mtu: 247))
            var frames = 0
            for await (characteristic, _) in await link.notifications() where characteristic == .indoorBikeData {
                frames += 1
                if frames == 5 { break }
            }
            await link.disconnect()
            rig.connection.close()
            let crash = try await rig.simulator.crash(whenLeaving: rig.connection.uniqueName)
            #expect(crash == nil, "\(rig.simulator.log.suffix(1500))")
            #expect(rig.simulator.log.contains("link down SF-Bike-0001: disconnected by request"))
        }

        /// Stopped from a cancelled task (a stop signal, the daemon's stop): the wait for
        /// NotifyAcquired=false still runs to its end before the Disconnect.
        @Test func aLinkStoppedFromACancelledTaskStillWaits() async throws {
            let rig = try await SimulatorRig.start(Self.arguments)
            defer { rig.stop() }
            let link = try await rig.connectedLink("SF-Bike-0001")
            let stop = Task {
                try? await Task.sleep(for: .seconds(3600))
                await link.disconnect()
            }
            stop.cancel()
            await stop.value
            rig.connection.close()
            let crash = try await rig.simulator.crash(whenLeaving: rig.connection.uniqueName)
            #expect(crash == nil, "\(rig.simulator.log.suffix(1500))")
        }

        /// A link that dropped: bluetoothd shut the socket down itself, but handles its hang-up
        /// later still, and a client leaving before that crashes 5.66 all the same. The link's
        /// close waits for NotifyAcquired=false there too.
        @Test func aLinkThatDroppedWaitsForTheHangUpBeforeTheClientLeaves() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known", "--rate", "20", "--fault", "notify-uaf=1500", "--fault", "link-drop=40"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let link = try await rig.connectedLink("SF-Bike-0001")
            let data = try #require(try await rig.simulator.gattPaths(device)["2ad2"])
            #expect(await rig.waitFor("the link to drop") { $0.properties(device, "org.bluez.Device1")?["Connected"]?.bool == false })
            await link.close()
            #expect(await rig.client.tree.properties(data, Self.characteristic)?["NotifyAcquired"]?.bool == false)
            rig.connection.close()
            let crash = try await rig.simulator.crash(whenLeaving: rig.connection.uniqueName)
            #expect(crash == nil, "\(rig.simulator.log.suffix(1500))")
        }
    }
}

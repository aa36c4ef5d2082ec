import OwnThread
import BlueZ
import TestSupport
import DBus
import FTMS
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
import RetryTiming
#endif

extension SimulatorProcessTests {
    /// AcquireNotify as BlueZ 5.66 serves it (docs/bluez.md "Reading, writing, notifications"), against `ftms-sim`, and the link's
    /// two notification paths: acquired sockets and the StartNotify fallback.
    @Suite("AcquireNotify")
    struct AcquireNotifyTests {
        private static let characteristic = "org.bluez.GattCharacteristic1"

        /// Waits for the simulator's end to have hung up, as a client sees it (a minute at
        /// most: a hang detector), on a thread of its own, off the cooperative pool.
        private static func hungUp(_ descriptor: Int32) async -> Bool {
            await onOwnThread {
                var probe = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let deadline = ContinuousClock.now + .seconds(60)
                while ContinuousClock.now < deadline {
                    probe.revents = 0
                    guard poll(&probe, 1, 10) > 0 else { continue }
                    if probe.revents & Int16(POLLHUP) != 0 { return true }
                    usleep(10_000)  // readable, not hung up yet: unread datagrams
                }
                return false
            }
        }

        /// The next datagram (waited for a minute at most, on a thread of its own).
        private static func receive(_ descriptor: Int32) async -> [UInt8]? {
            await onOwnThread {
                var probe = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&probe, 1, 60_000) > 0 else { return nil }
                var buffer = [UInt8](repeating: 0, count: 512)
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                return count >= 0 ? Array(buffer[0..<count]) : nil
            }
        }

        /// One socketpair per subscription, one datagram per notification, the refusals, the
        /// hang-up on disconnect and a fresh acquisition after reconnect.
        @Test func theSimulatorServesAcquireNotifyAs566Does() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known", "--rate", "0"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let paths = try await rig.simulator.gattPaths(device)
            let data = try #require(paths["2ad2"])
            let status = try #require(paths["2ada"])
            let controlPoint = try #require(paths["2ad9"])
            let resolved: @Sendable (ObjectTree) -> Bool = { $0.properties(device, "org.bluez.Device1")?["ServicesResolved"]?.bool == true }
            // Not connected: Failed, as 5.66 answers.
            #expect(await rig.failure(data, Self.characteristic, "AcquireNotify", [.properties([:])])?.remoteName == "org.bluez.Error.Failed")
            try await rig.call(device, "org.bluez.Device1", "Connect")
            #expect(await rig.waitFor("resolved", resolved))
            #expect(await rig.client.tree.properties(data, Self.characteristic)?["NotifyAcquired"]?.bool == false)
            // The Control Point only indicates: NotSupported, and it has no NotifyAcquired.
            #expect(await rig.failure(controlPoint, Self.characteristic, "AcquireNotify", [.properties([:])])?.remoteName == "org.bluez.Error.NotSupported")
            #expect(await rig.client.tree.properties(controlPoint, Self.characteristic)?["NotifyAcquired"] == nil)

            let reply = try await rig.call(data, Self.characteristic, "AcquireNotify", [.properties([:])])
            #expect(reply.count == 2)
            #expect(reply[1] == .uint16(247))
            let descriptor = try #require(reply.first?.fileDescriptor?.take())
            defer { close(descriptor) }
            #expect(await rig.waitFor("NotifyAcquired") { $0.properties(data, Self.characteristic)?["NotifyAcquired"]?.bool == true })
            // Acquired: a second AcquireNotify and a StartNotify are NotPermitted.
            #expect(await rig.failure(data, Self.characteristic, "AcquireNotify", [.properties([:])])?.remoteName == "org.bluez.Error.NotPermitted")
            #expect(await rig.failure(data, Self.characteristic, "StartNotify")?.remoteName == "org.bluez.Error.NotPermitted")
            // Each notification is one datagram, in order; Value is not updated while acquired.
            let frames: [[UInt8]] = [[0x00, 0x00, 0x10, 0x00], [0x00, 0x00, 0x11, 0x00], [0x00, 0x00, 0x12, 0x00]]
            for frame in frames { try await rig.simulator.mock("NotifyValue", [.string(data), .string(Hex.string(frame))]) }
            for frame in frames { #expect(await Self.receive(descriptor) == frame) }
            #expect(await rig.client.tree.properties(data, Self.characteristic)?["Value"]?.bytes != frames.last)

            // A StartNotify session on Status makes AcquireNotify there InProgress.
            try await rig.call(status, Self.characteristic, "StartNotify")
            #expect(await rig.failure(status, Self.characteristic, "AcquireNotify", [.properties([:])])?.remoteName == "org.bluez.Error.InProgress")

            // The link goes down: the socket hangs up and NotifyAcquired goes false.
            let address = rig.simulator.machines["SF-Bike-0001"] ?? ""
            try await rig.simulator.mock("DisconnectDevice", [.string("hci0"), .string(address)])
            #expect(await Self.hungUp(descriptor))
            #expect(await rig.waitFor("NotifyAcquired=false") { $0.properties(data, Self.characteristic)?["NotifyAcquired"]?.bool == false })
            // Not re-established on reconnect: a client acquires again, and gets a new socket.
            try await rig.call(device, "org.bluez.Device1", "Connect")
            #expect(await rig.waitFor("resolved again", resolved))
            let again = try await rig.call(data, Self.characteristic, "AcquireNotify", [.properties([:])])
            // Owned by a value again, so the one close below is the only one: a second close
            // of a bare number could close whatever another test's socket reused it for.
            let second = try #require(again.first?.fileDescriptor)
            let secondNumber = try #require(second.number)
            try await rig.simulator.mock("NotifyValue", [.string(data), .string("00 00 20 00")])
            #expect(await Self.receive(secondNumber) == [0x00, 0x00, 0x20, 0x00])
            // Closing our end gives it back: the next AcquireNotify succeeds.
            if let taken = second.take() { close(taken) }
            let third = try await rig.call(data, Self.characteristic, "AcquireNotify", [.properties([:])])
            #expect(third.first?.fileDescriptor != nil)
        }

        /// The link acquires the data and Status characteristics (Control Point on StartNotify),
        /// frames arrive through the socket, and after a drop the supervisor's next link
        /// acquires again.
        @Test func theLinkAcquiresAndReacquiresAfterReconnect() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known", "--rate", "20"])
            defer { rig.stop() }
            let link = try await rig.connectedLink("SF-Bike-0001")
            let info = try #require(await link.info)
            #expect(info.notifyPaths[.indoorBikeData] == .acquired(mtu: 247))
            #expect(info.notifyPaths[.fitnessMachineStatus] == .acquired(mtu: 247))
            var frames = 0
            for await (characteristic, value) in await link.notifications() where characteristic == .indoorBikeData {
                #expect(value.withUnsafeBytes { DataRecord(kind: .indoorBikeData, decoding: $0) }.values.value(.instantaneousSpeed) != nil)
                frames += 1
                if frames == 10 { break }
            }
            // Control still works through the StartNotify indications.
            #expect(try await link.send(.power(watts: 180)).succeeded)
            await link.disconnect()
        }

        /// A link that drops (after 30 frames) is followed by a new one that acquires again.
        @Test func theSupervisorsNextLinkAcquiresAgain() async throws {
            let rig = try await SimulatorRig.start(["--rowers", "1", "--bikes", "0", "--known", "--rate", "20", "--fault", "link-drop=30"])
            defer { rig.stop() }
            let supervisor = MachineSupervisor(
                client: rig.client, target: MachineTarget(name: "SF-Rower-0001"),
                backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(100)))
            let run = Task { await supervisor.run() }
            defer { run.cancel() }
            var readies: [MachineInfo] = []
            var afterSecond = 0
            for await event in supervisor.events {
                switch event {
                case .ready(let info): readies.append(info)
                case .notification(.rowerData, _) where readies.count == 2: afterSecond += 1
                default: break
                }
                if afterSecond == 5 { break }
            }
            #expect(readies.count == 2)
            #expect(readies.allSatisfy { $0.notifyPaths[.rowerData] == .acquired(mtu: 247) })
        }

        /// With AcquireNotify refused, the link falls back to StartNotify and says why; the
        /// frames arrive all the same, through PropertiesChanged.
        @Test func refusedAcquireNotifyFallsBackToStartNotify() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known", "--rate", "20", "--no-acquire-notify"])
            defer { rig.stop() }
            let link = try await rig.connectedLink("SF-Bike-0001")
            let info = try #require(await link.info)
            #expect(info.notifyPaths[.indoorBikeData] == .startNotify(reason: "AcquireNotify refused: NotSupported Operation is not supported"))
            var frames = 0
            for await (characteristic, _) in await link.notifications() where characteristic == .indoorBikeData {
                frames += 1
                if frames == 10 { break }
            }
            #expect(frames == 10)
            let data = try #require(try await rig.simulator.gattPaths(try rig.device("SF-Bike-0001"))["2ad2"])
            #expect(await rig.client.tree.properties(data, Self.characteristic)?["Notifying"]?.bool == true)
        }

        /// Another client's StartNotify session: AcquireNotify is InProgress, the link falls back.
        @Test func anotherClientsSessionMeansInProgressAndTheFallback() async throws {
            let rig = try await SimulatorRig.start(["--bikes", "1", "--known", "--rate", "20"])
            defer { rig.stop() }
            let device = try rig.device("SF-Bike-0001")
            let data = try #require(try await rig.simulator.gattPaths(device)["2ad2"])
            let other = try await DBusConnection.connect(address: rig.bus.address)
            defer { other.close() }
            _ = try await other.call(destination: "org.bluez", path: data, interface: Self.characteristic, member: "StartNotify", timeout: .seconds(5))
            let link = try await rig.connectedLink("SF-Bike-0001")
            let info = try #require(await link.info)
            #expect(info.notifyPaths[.indoorBikeData] == .startNotify(reason: "AcquireNotify refused: InProgress In Progress"))
            var frames = 0
            for await (characteristic, _) in await link.notifications() where characteristic == .indoorBikeData {
                frames += 1
                if frames == 5 { break }
            }
            #expect(frames == 5)
        }
    }
}

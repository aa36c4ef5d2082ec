import BlueZ
import TestSupport
import DBus
import Testing

extension SimulatorProcessTests {
    /// BlueZ 5.66 makes one Device1 per adapter that hears a device; `--visible-on` says
    /// whether the simulator does the same (`all`, the default with several adapters) or
    /// puts each machine on one adapter (`one`).
    @Suite("Machines seen by several adapters")
    struct AdapterVisibilityTests {
        @Test func everyAdapterHasItsOwnCopyOfEveryMachineByDefault() async throws {
            let rig = try await SimulatorRig.start(["--adapters", "3", "--bikes", "2", "--known", "--rate", "0"])
            defer { rig.stop() }
            let copies = await rig.client.machines(passing: MachineFilter())
            #expect(copies.count == 6)
            for name in ["SF-Bike-0001", "SF-Bike-0002"] {
                #expect(Set(copies.filter { $0.name == name }.map(\.adapter)) == ["/org/bluez/hci0", "/org/bluez/hci1", "/org/bluez/hci2"])
                #expect(Set(copies.filter { $0.name == name }.map(\.path)) == Set(try ["hci0", "hci1", "hci2"].map { try rig.device(name, adapter: $0) }))
            }
        }

        @Test func oneAdapterPerMachineWhenAsked() async throws {
            let rig = try await SimulatorRig.start(["--adapters", "2", "--bikes", "4", "--known", "--rate", "0", "--visible-on", "one"])
            defer { rig.stop() }
            let copies = await rig.client.machines(passing: MachineFilter())
            #expect(copies.count == 4)
            #expect(copies.filter { $0.adapter == "/org/bluez/hci1" }.count == 2)
        }

        /// A peripheral takes one central: while one adapter's copy holds the link, Connect
        /// through another adapter's copy fails as a busy controller's does.
        @Test func oneLinkPerMachineAcrossAdapters() async throws {
            let rig = try await SimulatorRig.start(["--adapters", "2", "--bikes", "1", "--known", "--rate", "0"])
            defer { rig.stop() }
            let first = try rig.device("SF-Bike-0001", adapter: "hci0")
            let second = try rig.device("SF-Bike-0001", adapter: "hci1")
            try await rig.call(first, "org.bluez.Device1", "Connect")
            let refused = await rig.failure(second, "org.bluez.Device1", "Connect")
            #expect(refused?.remoteName == "org.bluez.Error.Failed")
            #expect("\(refused.map { "\($0)" } ?? "")".contains("le-connection-abort-by-local"))
            try await rig.call(first, "org.bluez.Device1", "Disconnect")
            try await rig.call(second, "org.bluez.Device1", "Connect")
            #expect(await rig.waitFor("hci1 connected") { $0.properties(second, "org.bluez.Device1")?["Connected"]?.bool == true })
        }

        /// Unplugging an adapter removes its copies (their links drop with them) and leaves
        /// the other adapters' copies on the bus, still connectable.
        @Test func removingAnAdapterRemovesOnlyItsCopies() async throws {
            let rig = try await SimulatorRig.start(["--adapters", "2", "--bikes", "1", "--known", "--rate", "0"])
            defer { rig.stop() }
            let first = try rig.device("SF-Bike-0001", adapter: "hci0")
            let second = try rig.device("SF-Bike-0001", adapter: "hci1")
            try await rig.call(second, "org.bluez.Device1", "Connect")
            try await rig.simulator.mock("RemoveAdapter", [.string("hci1")])
            #expect(await rig.waitFor("hci1 gone") { tree in !tree.objects.keys.contains { $0.hasPrefix("/org/bluez/hci1") } })
            #expect(await rig.client.tree.properties(first, "org.bluez.Device1") != nil)
            try await rig.call(first, "org.bluez.Device1", "Connect")
            #expect(await rig.waitFor("hci0 connected") { $0.properties(first, "org.bluez.Device1")?["Connected"]?.bool == true })
        }
    }
}

import BlueZ
import TestSupport
import Daemon
import Foundation
import Testing

/// The link budget (contract §2) against the built `ftms-sim`, whose machines are seen by
/// every adapter as BlueZ 5.66 sees them (one Device1 per adapter): spread under the budget,
/// moved when an adapter goes away, waiting with a reason when there is no room.
@Suite("Daemon: machines spread over adapters", .serialized)
struct AdapterSpreadTests {
    @Test func twelveMachinesOverThreeAdaptersStayWithinTheBudget() async throws {
        let rig = try await FleetRig(simulator: ["--adapters", "3", "--bikes", "8", "--rowers", "4", "--rate", "4", "--known"], maxConnected: 12, maxPerAdapter: 4)
        try await rig.start()
        let ready = try await eventually(.seconds(60)) {
            let machines = await rig.statuses()
            return machines.count == 12 && machines.values.allSatisfy { $0.state == .ready && $0.sessionID != nil }
        }
        let machines = await rig.statuses()
        #expect(ready, "\(machines.values.map { "\($0.name) \($0.state) \($0.adapter ?? "-") \($0.adapterReason ?? "")" })")
        let byAdapter = Dictionary(grouping: machines.values, by: { $0.adapter ?? "none" }).mapValues(\.count)
        #expect(byAdapter == ["hci0": 4, "hci1": 4, "hci2": 4])
        // What BlueZ holds, not only what the fleet says: one link per machine, 4 per adapter.
        #expect(try await rig.links() == ["hci0": 4, "hci1": 4, "hci2": 4])
        #expect(machines.values.allSatisfy { $0.adapterReason?.contains("/4 links") == true })
        await rig.stop()
    }

    /// 10 machines, budget 4 on 3 adapters: 4, 3, 3. hci1 goes away: one of its machines
    /// finds room on hci2 and keeps its session; the other two wait, saying why.
    @Test func anAdapterThatGoesAwayHasItsMachinesMovedWhereThereIsRoom() async throws {
        let rig = try await FleetRig(simulator: ["--adapters", "3", "--bikes", "10", "--rate", "4", "--known"], maxConnected: 10, maxPerAdapter: 4)
        try await rig.start()
        #expect(try await eventually(.seconds(60)) {
            let machines = await rig.statuses()
            return machines.count == 10 && machines.values.allSatisfy { $0.state == .ready && $0.sessionID != nil }
        })
        let before = await rig.statuses()
        #expect(Dictionary(grouping: before.values, by: { $0.adapter ?? "none" }).mapValues(\.count) == ["hci0": 4, "hci1": 3, "hci2": 3])
        let moving = before.values.filter { $0.adapter == "hci1" }.map(\.name).sorted()
        try await rig.sim.mock("RemoveAdapter", [.string("hci1")])
        let full = "waiting for a free link: every adapter that hears it is full (hci0 4/4, hci2 4/4)"
        let settled = try await eventually(.seconds(60)) {
            let machines = await rig.statuses()
            let moved = moving.filter { machines[$0]?.state == .ready && machines[$0]?.adapterReason == "moved from hci1, which went away" }
            let waiting = moving.filter { machines[$0]?.state != .ready && machines[$0]?.adapterReason == full }
            return moved.count == 1 && waiting.count == 2 && machines.values.filter { $0.state == .ready }.count == 8
        }
        let after = await rig.statuses()
        #expect(settled, "\(after.values.map { "\($0.name) \($0.state) \($0.adapter ?? "-") \($0.adapterReason ?? "")" })")
        #expect(try await rig.links() == ["hci0": 4, "hci2": 4])
        // The moved machine's session carried on across the move (within the disconnect grace).
        for name in moving where after[name]?.state == .ready {
            #expect(after[name]?.adapter == "hci2")
            #expect(after[name]?.sessionID == before[name]?.sessionID)
        }
        // The others did not move.
        for (name, status) in before where !moving.contains(name) { #expect(after[name]?.adapter == status.adapter) }
        await rig.stop()
    }

    /// Machines left connected through different adapters (a crashed instance's links) are
    /// adopted where they are, the budget counting those links: SF-Bike-0001 is linked
    /// through hci1, SF-Bike-0002 through hci0 (both also known on the other adapter, heard
    /// there before), and neither is asked for a second link.
    @Test func machinesLeftConnectedAreAdoptedOnTheAdapterOfTheirLink() async throws {
        let rig = try await FleetRig(simulator: ["--adapters", "2", "--bikes", "2", "--rate", "4", "--known", "--fault", "connected-at-start"], maxConnected: 2, maxPerAdapter: 1)
        #expect(try await eventually(.seconds(10)) { (try? await rig.links()) == ["hci0": 1, "hci1": 1] })
        try await rig.start()
        let ready = try await eventually(.seconds(20)) {
            let machines = await rig.statuses()
            return machines.count == 2 && machines.values.allSatisfy { $0.state == .ready }
        }
        let machines = await rig.statuses()
        #expect(ready, "\(machines.values.map { "\($0.name) \($0.state) \($0.adapter ?? "-") \($0.adapterReason ?? "")" })")
        #expect(machines["SF-Bike-0001"]?.adapter == "hci1" && machines["SF-Bike-0002"]?.adapter == "hci0")
        #expect(try await rig.links() == ["hci0": 1, "hci1": 1])
        await rig.stop()
    }

    @Test func machinesBeyondTheBudgetWaitWithAReasonAndTakeAFreedLink() async throws {
        let rig = try await FleetRig(simulator: ["--adapters", "2", "--bikes", "6", "--rate", "4", "--known"], maxConnected: 6, maxPerAdapter: 2)
        try await rig.start()
        let settled = try await eventually(.seconds(60)) {
            let machines = await rig.statuses()
            return machines.count == 6 && machines.values.filter { $0.state == .ready }.count == 4
                && machines.values.filter { $0.adapterReason?.hasPrefix("waiting for a free link") == true }.count == 2
        }
        let machines = await rig.statuses()
        #expect(settled, "\(machines.values.map { "\($0.name) \($0.state) \($0.adapter ?? "-") \($0.adapterReason ?? "")" })")
        let waiting = machines.values.filter { $0.state != .ready }
        #expect(waiting.allSatisfy { $0.adapter == nil && $0.adapterReason == "waiting for a free link: every adapter that hears it is full (hci0 2/2, hci1 2/2)" })
        #expect(try await rig.links() == ["hci0": 2, "hci1": 2])
        // Take one machine out of range: its link is given back and a waiting machine takes it.
        let leaving = try #require(machines.values.first { $0.state == .ready })
        try await rig.sim.mock("VanishDevice", [.string("/org/bluez/\(leaving.adapter ?? "")/dev_" + leaving.address.replacingOccurrences(of: ":", with: "_"))])
        #expect(try await eventually(.seconds(30)) {
            let now = await rig.statuses()
            return waiting.contains { now[$0.name]?.state == .ready }
        })
        #expect(try await rig.links().values.allSatisfy { $0 <= 2 })
        await rig.stop()
    }
}

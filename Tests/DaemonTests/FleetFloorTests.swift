import BlueZ
import BlueZTesting
import TestSupport
import Daemon
import Foundation
import Testing

/// `MachineFleet` under a floor (`[fleet]` on, issue 37): the floor places every machine, the
/// allow list's too; the fleet tells it what it hears, links and drops, takes what it is told
/// to and releases a machine with its session kept. With no floor, FleetTests hold today's
/// behaviour unchanged.
@Suite("Daemon: the machine fleet under a floor", .serialized)
struct FleetFloorTests {
    /// A floor that refuses every machine the fleet offers, and records what it is told.
    actor RecordingFloor: FloorHooks {
        var heard: [String: Int] = [:]
        var asked: Set<String> = []
        var links: [String] = []
        var drops: [String] = []

        func mayConnect(_ machine: MachineTarget) async -> Bool {
            asked.insert(machine.address ?? "")
            return false
        }

        func heard(_ sightings: [MachineSighting]) async {
            for sighting in sightings { heard[sighting.address] = sighting.rssi }
        }

        func linked(_ machine: MachineTarget) async { links.append(machine.address ?? "") }
        func dropped(_ machine: MachineTarget, reason: String) async { drops.append(machine.address ?? "") }
    }

    @Test func theFloorPlacesEveryMachineAndTheFleetTakesAndReleasesOnCue() async throws {
        let floor = RecordingFloor()
        let rig = try await FleetRig(simulator: ["--bikes", "2", "--rate", "4"], allow: ["SF-Bike-0001"], floor: floor)
        let bike2 = try #require(rig.sim.machines["SF-Bike-0002"]).uppercased()
        let bike1 = try #require(rig.sim.machines["SF-Bike-0001"]).uppercased()
        try await rig.start()
        // Discovery runs; both machines are heard with an RSSI and offered; the floor says no,
        // so even the allowed one stays unconnected.
        #expect(try await eventually { await floor.heard.keys.sorted() == [bike1, bike2].sorted() })
        #expect(try await eventually { await floor.asked.isSuperset(of: [bike1, bike2]) })
        #expect(await rig.fleet.sightings().map(\.address).sorted() == [bike1, bike2].sorted())
        try await Task.sleep(for: .milliseconds(500))
        #expect(await rig.statuses().isEmpty)
        #expect(try await rig.links().values.reduce(0, +) == 0)

        // Taken on cue though the allow list does not name it: linked, riding, reported.
        #expect(await rig.fleet.take(MachineTarget(name: "SF-Bike-0002", address: bike2)))
        #expect(try await eventually { await rig.statuses()["SF-Bike-0002"]?.sessionID != nil })
        #expect(await floor.links == [bike2])
        #expect(await rig.fleet.heldMachines() == [bike2])
        #expect(await rig.fleet.freeSlots == 9)
        let session = await rig.statuses()["SF-Bike-0002"]?.sessionID

        // Released: disconnected in the normal exit order, the session kept (not ended, not stored).
        #expect(await rig.fleet.release("SF-Bike-0002", reason: "handed over to the floor"))
        #expect(try await eventually { try await rig.links().values.reduce(0, +) == 0 })
        let after = await rig.statuses()["SF-Bike-0002"]
        #expect(after?.state == .disconnected)
        #expect(after?.sessionID == session)
        #expect(after?.lastError == "handed over to the floor")
        #expect(await rig.fleet.heldMachines().isEmpty)
        #expect(try await rig.store.counts().pending == 0)
        #expect(await rig.fleet.release("SF-Bike-0002", reason: "again") == false)
        await rig.stop()
    }
}

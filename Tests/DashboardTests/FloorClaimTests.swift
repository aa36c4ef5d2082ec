import Dashboard
import Floor
import MQTT
import Publish
import Testing

/// With the floor on (docs/fleet.md): the floor's claims and presences on the broker label the
/// tiles with the gateway holding each machine, and "adopted from" its home while it is away.
@Suite("Floor claims on tiles")
struct FloorClaimTests {
    let t0 = 1_763_712_000.0

    @Test func floorTopicsMapToPresenceAndClaimAndCheckpointsAreNotTheirs() throws {
        func event(_ topic: String, _ payload: [UInt8]) -> GatewayEvent? {
            MQTTSource.event(for: MQTTMessage(topic: topic, payload: payload, qos: 1, retained: true), prefix: "gym")
        }
        let presence = GatewayPresence(gateway: "floor-1", home: ["SF-Bike-0001"], freeSlots: 2)
        #expect(event("gym/floor/gateways/floor-1", presence.payload) == .presence(presence))
        let claim = MachineClaim(machine: "C0:5F:00:00:00:01", name: "SF-Bike-0001", holder: "floor-2", epoch: 3, reason: .adopted)
        #expect(event("gym/floor/machines/C0:5F:00:00:00:01/claim", claim.payload) == .claim(claim))
        #expect(event("gym/floor/machines/C0:5F:00:00:00:01/checkpoint", Array("{}".utf8)) == nil)
        #expect(event("gym/floor/machines/C0:5F:00:00:00:01/claim", Array("garbage".utf8)) == nil)
        #expect(event("gym/floor/gateways/floor-1", []) == nil)
        // A gateway that happens to be named "floor" keeps its own topics.
        #expect(event("gym/floor/status", Array("online".utf8)) == .online(gateway: "floor"))
    }

    @Test func aTileSaysWhoHoldsItsMachineAndWhomItWasAdoptedFrom() throws {
        var floor = FloorState()
        func machine(_ gateway: String, state: String, at time: Double) throws {
            floor.apply(
                .message(gateway: gateway, try Envelopes.message("machine", machine: "SF-Bike-0001", at: time, seq: 1, payload: Envelopes.machine("SF-Bike-0001", state: state))),
                now: time)
        }
        try machine("floor-1", state: "ready", at: t0)
        #expect(floor.orderedTiles.first?.holder == nil, "no floor, no label")
        floor.apply(.presence(GatewayPresence(gateway: "floor-1", home: ["SF-Bike-0001"])), now: t0)
        floor.apply(.presence(GatewayPresence(gateway: "floor-2", home: [])), now: t0)
        // A claim without a name finds the tile by the address its machine messages gave.
        let home = floor.apply(.claim(MachineClaim(machine: "c0:5f:00:00:00:01", holder: "floor-1", epoch: 1, reason: .home)), now: t0)
        guard case .tile(let held, nil, false)? = home.first else {
            Issue.record("the claim relabels the tile: \(home)")
            return
        }
        #expect(held.holder == "floor-1" && held.adoptedFrom == nil)

        // floor-1 dies; floor-2 adopts the bike: both tiles say floor-2 holds it, adopted from
        // floor-1, its home.
        try machine("floor-1", state: "disconnected", at: t0 + 5)
        floor.apply(.claim(MachineClaim(machine: "C0:5F:00:00:00:01", name: "SF-Bike-0001", holder: "floor-2", epoch: 2, reason: .adopted)), now: t0 + 6)
        try machine("floor-2", state: "ready", at: t0 + 7)
        #expect(floor.orderedTiles.map(\.gateway) == ["floor-1", "floor-2"])
        #expect(floor.orderedTiles.map(\.holder) == ["floor-2", "floor-2"])
        #expect(floor.orderedTiles.map(\.adoptedFrom) == ["floor-1", "floor-1"])

        // A late claim with an older epoch changes nothing; back home, the label goes.
        #expect(floor.apply(.claim(MachineClaim(machine: "C0:5F:00:00:00:01", holder: "floor-1", epoch: 1, reason: .home)), now: t0 + 8).isEmpty)
        floor.apply(.claim(MachineClaim(machine: "C0:5F:00:00:00:01", name: "SF-Bike-0001", holder: "floor-1", epoch: 4, reason: .home)), now: t0 + 9)
        #expect(floor.orderedTiles.map(\.holder) == ["floor-1", "floor-1"])
        #expect(floor.orderedTiles.allSatisfy { $0.adoptedFrom == nil })
        #expect(floor.gateways.keys.sorted() == ["floor-1", "floor-2"], "presences and claims add no gateway of their own")
    }

    @Test func withoutAPresenceNamingItsHomeTheHolderBeforeIsWhereItCameFrom() throws {
        var floor = FloorState()
        floor.apply(.message(gateway: "floor-3", try Envelopes.message("machine", machine: "SF-Rower-0001", at: t0, seq: 1, payload: Envelopes.machine("SF-Rower-0001", state: "ready", type: "rower"))), now: t0)
        floor.apply(.claim(MachineClaim(machine: "AA:00:00:00:00:09", name: "SF-Rower-0001", holder: "floor-4", epoch: 7, reason: .home)), now: t0)
        floor.apply(.claim(MachineClaim(machine: "AA:00:00:00:00:09", name: "SF-Rower-0001", holder: "floor-3", epoch: 8, reason: .adopted)), now: t0)
        #expect(floor.orderedTiles.first?.holder == "floor-3")
        #expect(floor.orderedTiles.first?.adoptedFrom == "floor-4")
    }
}

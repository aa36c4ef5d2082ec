import DeterministicRandom
import Floor
import JSON
import Testing
import Workout

/// The floor's three messages on the wire (docs/fleet.md): their exact JSON, a round trip, and
/// anything else anyone on the broker may publish read as an error, never a trap.
@Suite struct WireTests {
    @Test func presenceRoundTrips() throws {
        let presence = GatewayPresence(
            gateway: "floor-1", home: ["AA:BB:CC:DD:EE:01", "SF-Bike-0001"], freeSlots: 3, heard: ["AA:BB:CC:DD:EE:01": -58],
            holding: ["AA:BB:CC:DD:EE:02"], releasing: [], beat: 17)
        #expect(
            String(decoding: presence.payload, as: UTF8.self)
                == #"{"gateway":"floor-1","online":true,"home":["AA:BB:CC:DD:EE:01","SF-Bike-0001"],"free_slots":3,"heard":{"AA:BB:CC:DD:EE:01":-58},"holding":["AA:BB:CC:DD:EE:02"],"releasing":[],"beat":17}"#)
        #expect(try GatewayPresence(payload: presence.payload) == presence)
    }

    @Test func presenceCarriesItsRulesWhenToldAndReadsWithoutThem() throws {
        let rules = FloorRules(heartbeat: .milliseconds(2500), lease: .seconds(12), rssiMargin: 8)
        let presence = GatewayPresence(gateway: "floor-1", home: [], freeSlots: 1, rules: rules)
        let text = String(decoding: presence.payload, as: UTF8.self)
        #expect(
            text.hasSuffix(
                #""beat":0,"rules":{"heartbeat_ms":2500,"lease_ms":12000,"rssi_margin":8,"heard_window_ms":15000,"hold_unconfirmed_ms":120000,"disconnect_grace_ms":60000}}"#),
            "\(text)")
        #expect(try GatewayPresence(payload: presence.payload).rules == rules)
        let without = #"{"gateway":"floor-1","online":true,"home":[],"free_slots":1,"heard":{},"holding":[],"releasing":[],"beat":0}"#
        #expect(try GatewayPresence(payload: Array(without.utf8)).rules == nil)
        #expect(throws: FloorWireError("gateway presence rules: no lease_ms")) {
            try GatewayPresence(payload: Array(#"{"gateway":"g","online":true,"rules":{"heartbeat_ms":1}}"#.utf8))
        }
    }

    @Test func theLastWillIsTwoMembersAndReadsAsAnEmptyPresence() throws {
        let will = GatewayPresence.will(gateway: "floor-1")
        #expect(String(decoding: will.payload, as: UTF8.self) == #"{"gateway":"floor-1","online":false}"#)
        #expect(try GatewayPresence(payload: Array(#"{"gateway":"floor-1","online":false}"#.utf8)) == will)
    }

    @Test func rssiIsRoundedToTwoDecibels() {
        #expect([-58, -59, -60, -61, -1, 0, 3].map(GatewayPresence.roundedRSSI) == [-58, -60, -60, -62, -2, 0, 4])
    }

    @Test func claimKnownAnswer() throws {
        let claim = MachineClaim(machine: "AA:BB:CC:DD:EE:01", name: "SF-Bike-0001", holder: "floor-2", epoch: 12, sessionID: nil, reason: .adopted)
        #expect(
            String(decoding: claim.payload, as: UTF8.self)
                == #"{"machine":"AA:BB:CC:DD:EE:01","name":"SF-Bike-0001","holder":"floor-2","epoch":12,"session_id":null,"reason":"adopted"}"#)
        #expect(try MachineClaim(payload: claim.payload) == claim)
        let released = MachineClaim(machine: "AA:BB:CC:DD:EE:01", holder: nil, epoch: 13, sessionID: "s-1", reason: .handover)
        #expect(try MachineClaim(payload: released.payload) == released)
        for reason in MachineClaim.Reason.allCases {
            let text = #"{"machine":"M","holder":null,"epoch":1,"reason":"\#(reason.rawValue)"}"#
            #expect(try MachineClaim(payload: Array(text.utf8)).reason == reason)
        }
    }

    @Test func checkpointCarriesTheSnapshotWhole() throws {
        let snapshot = try SnapshotMaker.ridden()
        let checkpoint = MirroredCheckpoint(
            machine: "AA:BB:CC:DD:EE:01", holder: "floor-1", epoch: 12, sessionID: snapshot.sessionID, state: .open, snapshot: snapshot)
        let read = try MirroredCheckpoint(payload: try checkpoint.payload())
        #expect(read == checkpoint)
        #expect(read.snapshot == snapshot)
        let finished = MirroredCheckpoint(
            machine: "AA:BB:CC:DD:EE:01", holder: "floor-2", epoch: 13, sessionID: "s-2", state: .finished, endEpoch: 1_764_400_000, splitFrom: "s-1")
        let text = String(decoding: try finished.payload(), as: UTF8.self)
        #expect(
            text
                == #"{"machine":"AA:BB:CC:DD:EE:01","holder":"floor-2","epoch":13,"session_id":"s-2","state":"finished","snapshot":null,"end_epoch":1764400000,"split_from":"s-1"}"#)
        #expect(try MirroredCheckpoint(payload: Array(text.utf8)) == finished)
        let handed = MirroredCheckpoint(machine: "M", holder: "g", epoch: 1, sessionID: "s", state: .handedOver)
        #expect(String(decoding: try handed.payload(), as: UTF8.self).contains(#""state":"handed_over""#))
        var carrying = finished
        carrying.carried = [CarriedSession(sessionID: "s-0", from: "floor-1", by: "floor-2")]
        let carried = String(decoding: try carrying.payload(), as: UTF8.self)
        #expect(carried.hasSuffix(#","split_from":"s-1","carried":[{"session_id":"s-0","from":"floor-1","by":"floor-2"}]}"#))
        #expect(try MirroredCheckpoint(payload: Array(carried.utf8)) == carrying)
    }

    @Test func aCarriedListThatIsNotAListOfAdoptionsIsAWireError() {
        for text in [
            #"{"machine":"M","holder":"g","epoch":1,"session_id":"s","state":"open","carried":{}}"#,
            #"{"machine":"M","holder":"g","epoch":1,"session_id":"s","state":"open","carried":["s-0"]}"#,
            #"{"machine":"M","holder":"g","epoch":1,"session_id":"s","state":"open","carried":[{"session_id":"s-0","from":"a"}]}"#,
        ] {
            #expect(throws: FloorWireError.self) { try MirroredCheckpoint(payload: Array(text.utf8)) }
        }
    }

    static let garbage: [String] = [
        "", "nul", "[]", "12", #""text""#, "{", #"{"gateway":1,"online":true}"#, #"{"gateway":"g"}"#, #"{"gateway":"g","online":"yes"}"#,
        #"{"gateway":"g","online":true,"heard":{"M":"loud"}}"#, #"{"gateway":"g","online":true,"home":"M"}"#,
        #"{"gateway":"g","online":true,"free_slots":1.5}"#, #"{"machine":"M","holder":null,"epoch":"12","reason":"home"}"#,
        #"{"machine":"M","holder":null,"epoch":12,"reason":"stolen"}"#, #"{"machine":"M","holder":7,"epoch":12,"reason":"home"}"#,
        #"{"machine":"M","holder":"g","epoch":1e300,"reason":"home"}"#,
        #"{"machine":"M","holder":"g","epoch":1,"session_id":"s","state":"open","snapshot":{"version":2}}"#,
        #"{"machine":"M","holder":"g","epoch":1,"session_id":"s","state":"paused"}"#,
        #"{"machine":"M","holder":"g","epoch":1,"session_id":"s","state":"open","snapshot":[1,2]}"#,
        String(repeating: "[", count: 10_000),
    ]

    @Test(arguments: garbage) func garbageIsAnError(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(throws: FloorWireError.self) { try GatewayPresence(payload: bytes) }
        #expect(throws: FloorWireError.self) { try MachineClaim(payload: bytes) }
        #expect(throws: FloorWireError.self) { try MirroredCheckpoint(payload: bytes) }
    }

    /// Random bytes and random mutations of valid payloads: each read returns or throws.
    @Test func randomBytesNeverTrap() throws {
        var random = SplitMix64(seed: 37)
        let valid = [
            GatewayPresence(gateway: "g", home: ["M"], freeSlots: 2, heard: ["M": -50]).payload,
            MachineClaim(machine: "M", holder: "g", epoch: 3, reason: .home).payload,
            try MirroredCheckpoint(machine: "M", holder: "g", epoch: 1, sessionID: "s", state: .open, snapshot: try SnapshotMaker.ridden()).payload(),
        ]
        var read = 0
        for round in 0..<3000 {
            var bytes = valid[round % valid.count]
            if round % 2 == 0 {
                bytes = random.bytes(count: Int(random.next() % 64))
            } else {
                for _ in 0..<(1 + Int(random.next() % 4)) where !bytes.isEmpty {
                    bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
                }
            }
            if (try? GatewayPresence(payload: bytes)) != nil { read += 1 }
            if (try? MachineClaim(payload: bytes)) != nil { read += 1 }
            if (try? MirroredCheckpoint(payload: bytes)) != nil { read += 1 }
        }
        #expect(read < 3 * 3000)
    }
}

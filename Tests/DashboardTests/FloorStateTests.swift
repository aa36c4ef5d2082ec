import Dashboard
import Publish
import Testing

@Suite("FloorState")
struct FloorStateTests {
    let t0 = 1_763_712_000.0

    @Test func helloSnapshotThenSamplesMakeTiles() throws {
        var floor = FloorState()
        let hello = try Envelopes.message(
            "hello", machine: nil, at: t0, seq: 41,
            payload: #"{"daemonVersion":"x","lastSeq":41,"machines":[\#(Envelopes.line("machine", machine: "SF-Bike-0001", at: t0, seq: 3, payload: Envelopes.machine("SF-Bike-0001", state: "ready"))),\#(Envelopes.line("machine", machine: "SF-Rower-0001", at: t0, seq: 4, payload: Envelopes.machine("SF-Rower-0001", state: "ready", type: "rower")))],"sessions":[\#(Envelopes.line("session_state", machine: "SF-Bike-0001", session: "s1", at: t0, seq: 40, payload: #"{"state":"started","startEpoch":1763711990,"elapsedMs":10000,"movingMs":10000}"#))],"watch":{"machines":[],"types":[]}}"#)
        let event = try #require(GatewayEvent.snapshot(gateway: "front", hello: hello))
        #expect(floor.apply(event, now: t0) == [.reset])
        #expect(floor.orderedTiles.map(\.name) == ["SF-Bike-0001", "SF-Rower-0001"])
        #expect(floor.orderedTiles.map(\.type) == ["bike", "rower"])
        #expect(floor.gateways["front"]?.lastSeq == 41)
        let bike = try #require(floor.orderedTiles.first)
        #expect(bike.session?.state == "started")
        #expect(bike.session?.elapsed(at: t0 + 5) == 15)

        let changes = floor.apply(.message(gateway: "front", try Envelopes.message("sample", machine: "SF-Bike-0001", session: "s1", at: t0 + 1, seq: 42, payload: Envelopes.bikeSample(power: 212))), now: t0 + 1)
        guard case .tile(let tile, let point, let live) = try #require(changes.first) else {
            Issue.record("expected a tile change, got \(changes)")
            return
        }
        #expect(live)
        #expect(tile.power == 212 && tile.cadence == 85 && tile.heartRate == 140 && tile.distance == 1200 && tile.energy == 55 && tile.speed == 31.4)
        #expect(point == SparkPoint(t: t0 + 1, v: 212))

        floor.apply(.message(gateway: "front", try Envelopes.message("sample", machine: "SF-Rower-0001", at: t0 + 1, seq: 43, payload: Envelopes.rowerSample)), now: t0 + 1)
        let rower = try #require(floor.tiles[.init(gateway: "front", machine: "SF-Rower-0001")])
        #expect(rower.pace == 118 && rower.strokeRate == 26 && rower.power == 190 && rower.cadence == nil)
    }

    @Test func aDroppedMachineLosesItsReadingsButKeepsItsTotals() throws {
        var floor = FloorState()
        // A gateway from before session totals: a sample in a session, the machine's counters.
        floor.apply(.message(gateway: "g", try Envelopes.message("sample", machine: "SF-Bike-0002", session: "s2", at: t0, seq: 1, payload: Envelopes.bikeSample(power: 150, distance: 900))), now: t0)
        #expect(floor.orderedTiles.first?.state == "ready")
        let changes = floor.apply(.message(gateway: "g", try Envelopes.message("machine", machine: "SF-Bike-0002", at: t0 + 2, seq: 2, payload: #"{"state":"disconnected","name":"SF-Bike-0002","address":"x","type":"bike","reason":"link lost"}"#)), now: t0 + 2)
        guard case .tile(let tile, nil, false) = try #require(changes.first) else {
            Issue.record("a machine message is a state change, not a live one: \(changes)")
            return
        }
        #expect(tile.state == "disconnected" && tile.reason == "link lost")
        #expect(tile.power == nil && tile.cadence == nil && tile.heartRate == nil)
        #expect(tile.distance == 900)
    }

    /// The tile shows the ride (the session's own distance, energy and clock), not the
    /// machine's lifetime counters, which stay in the sample.
    @Test func tilesShowTheSessionsFiguresNotTheMachinesCounters() throws {
        var floor = FloorState()
        let machineOnly = #"{"characteristic":"indoor_bike_data","uuid":"2ad2","flags":580,"more_data":false,"instantaneous_speed_kmh":0,"total_distance_m":12430,"total_energy_kcal":322}"#
        floor.apply(.message(gateway: "g", try Envelopes.message("sample", machine: "SF-Bike-0001", at: t0, seq: 1, payload: machineOnly)), now: t0)
        var tile = try #require(floor.orderedTiles.first)
        #expect(tile.distance == nil && tile.energy == nil)

        floor.apply(.message(gateway: "g", try Envelopes.message("session_state", machine: "SF-Bike-0001", session: "s1", at: t0 + 1, seq: 2, payload: #"{"state":"started","startEpoch":1763712001,"elapsedMs":0,"movingMs":0,"distanceM":0,"energyKcal":0}"#)), now: t0 + 1)
        tile = try #require(floor.orderedTiles.first)
        #expect(tile.distance == 0 && tile.energy == 0)

        let riding = #"{"characteristic":"indoor_bike_data","uuid":"2ad2","flags":580,"more_data":false,"instantaneous_speed_kmh":30,"instantaneous_power_w":180,"total_distance_m":12510,"total_energy_kcal":325,"session_distance_m":80,"session_energy_kcal":3,"session_elapsed_ms":10000,"session_moving_ms":10000}"#
        floor.apply(.message(gateway: "g", try Envelopes.message("sample", machine: "SF-Bike-0001", session: "s1", at: t0 + 11, seq: 3, payload: riding)), now: t0 + 11)
        tile = try #require(floor.orderedTiles.first)
        #expect(tile.distance == 80 && tile.energy == 3)
        #expect(tile.session?.elapsed(at: t0 + 12) == 11)

        floor.apply(.message(gateway: "g", try Envelopes.message("session_state", machine: "SF-Bike-0001", session: "s1", at: t0 + 70, seq: 4, payload: #"{"state":"finished","startEpoch":1763712001,"elapsedMs":69000,"movingMs":69000,"distanceM":575,"energyKcal":21}"#)), now: t0 + 70)
        // After the session: its totals stay until the next one starts.
        floor.apply(.message(gateway: "g", try Envelopes.message("sample", machine: "SF-Bike-0001", at: t0 + 71, seq: 5, payload: machineOnly)), now: t0 + 71)
        tile = try #require(floor.orderedTiles.first)
        #expect(tile.distance == 575 && tile.energy == 21)
    }

    @Test func sparklineTakesOnePointASecondOverItsWindow() throws {
        var floor = FloorState()
        var seq: UInt64 = 0
        // 4 Hz for 400 s: one point a second, the oldest beyond the window dropped.
        for step in 0..<1600 {
            seq += 1
            let time = t0 + Double(step) * 0.25
            floor.apply(.message(gateway: "g", try Envelopes.message("sample", machine: "SF-Bike-0001", at: time, seq: seq, payload: Envelopes.bikeSample(power: 100 + step % 50))), now: time)
        }
        let spark = try #require(floor.orderedTiles.first?.spark)
        #expect(spark.count == Dashboard.sparklineSeconds + 1)
        #expect(zip(spark, spark.dropFirst()).allSatisfy { $1.t - $0.t >= 1 })
        let last = try #require(spark.last)
        #expect(last.t == t0 + 399.75 - 0.75)
        #expect(spark.first.map { last.t - $0.t } == Double(Dashboard.sparklineSeconds))
    }

    @Test func gapsUploadAndOfflineShowInTheStrip() throws {
        var floor = FloorState()
        floor.apply(.online(gateway: "g"), now: t0)
        floor.apply(.message(gateway: "g", try Envelopes.message("sample", machine: "SF-Bike-0001", at: t0, seq: 10, payload: Envelopes.bikeSample(power: 1))), now: t0)
        floor.apply(.message(gateway: "g", try Envelopes.message("sample", machine: "SF-Bike-0001", at: t0, seq: 14, payload: Envelopes.bikeSample(power: 1))), now: t0)
        floor.apply(.message(gateway: "g", try Envelopes.message("upload", machine: nil, at: t0, seq: 15, payload: #"{"pending":2,"uploaded":7,"dead":1,"result":"ok"}"#)), now: t0)
        var strip = try #require(floor.gateways["g"])
        #expect(strip.gaps == 1 && strip.lastSeq == 15 && strip.messages == 3 && strip.online)
        #expect(strip.upload == GatewayUploadStatus(pending: 2, uploaded: 7, dead: 1, result: "ok", at: t0))
        floor.apply(.offline(gateway: "g", reason: "connection refused"), now: t0 + 1)
        strip = try #require(floor.gateways["g"])
        #expect(!strip.online && strip.reason == "connection refused")
        #expect(floor.orderedTiles.count == 1, "tiles stay, marked by their gateway, while it is away")
    }

    /// MQTT hands every new subscriber a gone gateway's retained messages (its machines'
    /// last `state`, ready) beside its retained `offline` status, in whatever order: those are
    /// no sign of life, and the gateway stays offline until it says `online` again.
    @Test func retainedMessagesOfAnOfflineGatewayDoNotBringItBack() throws {
        var floor = FloorState()
        floor.apply(.offline(gateway: "g", reason: "the gateway's MQTT status is offline"), now: t0)
        floor.apply(.message(gateway: "g", try Envelopes.message("machine", machine: "SF-Bike-0001", at: t0 - 60, seq: 3, payload: Envelopes.machine("SF-Bike-0001", state: "ready"))), now: t0)
        #expect(floor.gateways["g"]?.online == false)
        #expect(floor.orderedTiles.map(\.name) == ["SF-Bike-0001"])
        floor.apply(.online(gateway: "g"), now: t0 + 1)
        #expect(floor.gateways["g"]?.online == true)
    }

    @Test func aSnapshotForgetsMachinesTheGatewayNoLongerKnowsAndFinishedSessions() throws {
        var floor = FloorState()
        floor.apply(.message(gateway: "g", try Envelopes.message("session_state", machine: "SF-Bike-0001", session: "s", at: t0, seq: 1, payload: #"{"state":"started","elapsedMs":0}"#)), now: t0)
        floor.apply(.message(gateway: "g", try Envelopes.message("sample", machine: "SF-Bike-0009", at: t0, seq: 2, payload: Envelopes.bikeSample(power: 1))), now: t0)
        floor.apply(.message(gateway: "other", try Envelopes.message("sample", machine: "SF-Bike-0009", at: t0, seq: 2, payload: Envelopes.bikeSample(power: 1))), now: t0)
        let machine = try Envelopes.message("machine", machine: "SF-Bike-0001", at: t0, seq: 1, payload: Envelopes.machine("SF-Bike-0001", state: "ready"))
        floor.apply(.snapshot(gateway: "g", machines: [machine], sessions: [], seq: 3), now: t0)
        #expect(floor.orderedTiles.map { "\($0.gateway)/\($0.name)" } == ["g/SF-Bike-0001", "other/SF-Bike-0009"])
        #expect(floor.orderedTiles.first?.session == nil)
    }
}

/// The envelope as the dashboard folds it (Publish's reader: the refusals are its tests').
@Suite("MetricsMessage on the floor")
struct FloorMessageTests {
    @Test func unknownKeysAndTypesAreIgnoredNotRefused() throws {
        let message = try MetricsMessage(line: Array(#"{"type":"future","machine":null,"sessionId":null,"timestamp":1.5,"seq":7,"version":"1.0","payload":{"x":[1,{"y":null}]},"extra":true}"#.utf8))
        #expect(message.envelope.type.rawValue == "future" && message.envelope.seq == 7 && message.envelope.timestamp.seconds == 1.5)
        var floor = FloorState()
        #expect(floor.apply(.message(gateway: "g", message), now: 0).isEmpty)
    }
}

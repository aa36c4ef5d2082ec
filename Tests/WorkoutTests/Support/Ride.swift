import DeterministicRandom
import FTMS
import Workout

/// A scripted machine: feeds an engine samples, Status events, link events and ticks at
/// times given in seconds after 2026-11-21T08:00:00Z, and keeps every event in order.
struct Ride {
    static let origin = UTCTime(secondsSince1970: 1_795_248_000)  // 2026-11-21T08:00:00Z
    static let bike = MachineIdentity(name: "SF-Bike-0001", address: "C0:11:22:33:44:01", model: "SF-Bike-M1", type: .bike)
    static let rower = MachineIdentity(name: "SF-Rower-0002", address: "C0:11:22:33:44:02", model: "SF-Rower-M1", type: .rower)

    var engine: SessionEngine
    var events: [SessionEvent] = []
    let kind: DataRecord.Kind

    init(_ machine: MachineIdentity = Ride.bike, rules: SessionRules = SessionRules(), seed: UInt64 = 1) {
        engine = SessionEngine(machine: machine, rules: rules, ids: RandomSessionIDs(using: SplitMix64(seed: seed)))
        kind = machine.type == .rower ? .rowerData : .indoorBikeData
    }

    static func time(_ seconds: Double) -> Timestamp {
        Timestamp(monotonic: .milliseconds(Int64((seconds * 1000).rounded())), wallOrigin: origin)
    }

    mutating func sample(_ seconds: Double, _ fields: [DataField: Double]) {
        var values = FieldValues()
        for (field, value) in fields { values.set(field, value: value) }
        events += engine.ingest(DataRecord(kind: kind, values: values), at: Self.time(seconds))
    }

    mutating func status(_ seconds: Double, _ opCode: StatusOpCode, _ parameters: [Int32] = []) {
        events += engine.ingest(FitnessMachineStatus(opCode: opCode, parameters: parameters), at: Self.time(seconds))
    }

    mutating func disconnect(_ seconds: Double) {
        events += engine.disconnected(at: Self.time(seconds))
    }

    mutating func connect(_ seconds: Double) {
        events += engine.connected(at: Self.time(seconds))
    }

    mutating func tick(_ seconds: Double) {
        events += engine.tick(at: Self.time(seconds))
    }

    mutating func close(_ seconds: Double, _ reason: EndReason = .endOfCapture) {
        events += engine.close(at: Self.time(seconds), reason: reason)
    }

    /// `started`, `paused:idle`, `resumed`, `finished`, `dropped:too_short` …
    var timeline: [String] {
        events.map { event in
            switch event {
            case .started: "started"
            case .paused(_, let reason): "paused:\(reason.rawValue)"
            case .resumed: "resumed"
            case .finished: "finished"
            case .dropped(_, let reason, _): "dropped:\(reason.rawValue)"
            }
        }
    }

    /// Milliseconds since each event's session start.
    var elapsedMilliseconds: [Int64] { events.map(\.progress.elapsedMilliseconds) }

    var finished: [SessionSummary] {
        events.compactMap { if case .finished(_, let summary) = $0 { summary } else { nil } }
    }

    var ended: [SessionSummary] { events.compactMap(\.summary) }
}

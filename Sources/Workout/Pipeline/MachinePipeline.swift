public import FTMS

/// One machine's path from raw notifications to session events: decode, merge split
/// records, feed the engine (contract §1: "one code path from decoded sample onwards").
///
/// Live BLE and replay both drive this, with the only difference being where the bytes and
/// the times come from. Value type, one owner, no allocation per notification.
public struct MachinePipeline: Sendable {
    public private(set) var engine: SessionEngine
    private var merger: RecordMerger
    private var series = SeriesRecorder()

    public init(machine: MachineIdentity, rules: SessionRules = SessionRules(), ids: some SessionIDSource) {
        engine = SessionEngine(machine: machine, rules: rules, ids: ids)
        merger = RecordMerger(kind: machine.type.dataKind)
    }

    /// What one notification produced.
    public struct Output: Sendable {
        /// A whole merged sample, when this notification closed a record.
        public var sample: DataRecord?
        /// The decoded Fitness Machine Status event, when it was one.
        public var status: FitnessMachineStatus?
        public var events = SessionEvents()
        /// The open session's plot point, at most one per second (``SeriesRecorder``).
        public var seriesPoint: SeriesPoint?
        /// The frame was cut short or carried no flags: counted, and never fed to the engine
        /// as more than what it did carry.
        public var malformed = false
        /// The session open after this notification, if any.
        public var sessionID: String?
        /// Its progress at the notification, with a ``sample`` (what the sample's line shows).
        /// Read here, inside the one mutating access, so the caller does not copy the pipeline
        /// out of its actor to read them.
        public var progress: SessionProgress?
    }

    /// A notification of `characteristic` carrying `bytes`, at `time`. Characteristics the
    /// engine has no use for (the Control Point, another machine type's data) change nothing.
    public mutating func notification(_ characteristic: Characteristic, _ bytes: UnsafeRawBufferPointer, at time: Timestamp) -> Output {
        var output = Output()
        switch characteristic {
        case merger.kind.characteristic:
            let record = DataRecord(kind: merger.kind, decoding: bytes)
            output.malformed = record.truncated || record.flags == nil
            if let sample = merger.ingest(record, at: time.monotonic) {
                output.sample = sample
                output.events = engine.ingest(sample, at: time)
                if series.wants(time) { output.seriesPoint = series.take(sample.values, at: time, in: engine.progress(at: time)) }
            } else if record.carriesRunningTotal {
                output.events = engine.ingestRunningTotals(record.values, at: time)
            } else {
                output.events = engine.tick(at: time)
            }
        case .fitnessMachineStatus:
            let status = FitnessMachineStatus(decoding: bytes)
            output.status = status
            output.events = engine.ingest(status, at: time)
        default:
            output.events = engine.tick(at: time)
        }
        output.sessionID = engine.openSessionID
        if output.sample != nil { output.progress = engine.progress(at: time) }
        return output
    }

    public mutating func connected(at time: Timestamp) -> SessionEvents {
        engine.connected(at: time)
    }

    /// A dropped link also discards a half-merged record (FTMS §4.18).
    public mutating func disconnected(at time: Timestamp) -> SessionEvents {
        merger.reset()
        return engine.disconnected(at: time)
    }

    public mutating func tick(at time: Timestamp) -> SessionEvents {
        engine.tick(at: time)
    }

    public mutating func close(at time: Timestamp, reason: EndReason) -> SessionEvents {
        engine.close(at: time, reason: reason)
    }

    /// The open session's checkpoint when one is due (see ``SessionEngine/checkpointIfDue(at:)``).
    public mutating func checkpointIfDue(at time: Timestamp) -> SessionSnapshot? {
        engine.checkpointIfDue(at: time)
    }

    /// A pipeline that carries on a checkpointed session after a restart; the events are
    /// what the downtime already decided (see ``SessionEngine/restoring(_:rules:ids:at:)``).
    public static func restoring(
        _ snapshot: SessionSnapshot, rules: SessionRules = SessionRules(), ids: some SessionIDSource, at time: Timestamp
    ) -> (pipeline: MachinePipeline, events: SessionEvents) {
        var pipeline = MachinePipeline(machine: snapshot.machine, rules: rules, ids: ids)
        let restored = SessionEngine.restoring(snapshot, rules: rules, ids: ids, at: time)
        pipeline.engine = restored.engine
        return (pipeline, restored.events)
    }

    /// A pipeline that carries on another gateway's session from its mirrored checkpoint, which
    /// arrived at `arrival` on this gateway's monotonic clock; the events are what the time
    /// without a holder already decided (see ``SessionEngine/adopting(_:arrivedAt:rules:ids:at:)``).
    public static func adopting(
        _ snapshot: SessionSnapshot, arrivedAt arrival: Duration, rules: SessionRules = SessionRules(),
        ids: some SessionIDSource, at time: Timestamp
    ) -> (pipeline: MachinePipeline, events: SessionEvents) {
        var pipeline = MachinePipeline(machine: snapshot.machine, rules: rules, ids: ids)
        let adopted = SessionEngine.adopting(snapshot, arrivedAt: arrival, rules: rules, ids: ids, at: time)
        pipeline.engine = adopted.engine
        return (pipeline, adopted.events)
    }

    /// The next session started says it split from `sessionID` (``SessionEngine/splitting(from:)``).
    public mutating func splitting(from sessionID: String) {
        engine.splitting(from: sessionID)
    }

    /// Takes what a fresh connection learned (model, name) without touching the session.
    public mutating func identify(_ machine: MachineIdentity) {
        engine.machine = machine
    }
}

extension DataRecord {
    fileprivate var carriesRunningTotal: Bool {
        values.contains(.totalDistance) || values.contains(.totalEnergy) || values.contains(.strokeCount) || values.contains(.elapsedTime)
    }
}

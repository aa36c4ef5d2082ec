/// Merges a machine's split records (More Data = 1) into whole samples (contract §3).
///
/// FTMS 1.0 says a split record ends with its bit-0 = 0 packet, but real machines disagree:
/// the Viking Pro V rower sends the bit-0 packet *first* and its energy and distance packets
/// after it, at other rates (docs/ftms.md P8). So the merger does not group packets into records.
/// It keeps the latest value of every field with the time it arrived, and on each bit-0 = 0
/// packet emits everything still fresh. A packet that lacks a field never blanks it; an
/// instantaneous field older than the freshness window is dropped, so a stale speed or power
/// cannot pose as current. Running totals (distance, energy, strokes, elapsed time) never go
/// stale: the last value is still true, and the Viking sends its energy block once every few
/// strokes, so at an easy 19 strokes a minute a window would hide the machine's own counter
/// and force the engine to integrate instead (contract §5 prefers the counter).
///
/// Time comes in from the caller (live clock or a capture's virtual clock); the merger keeps
/// none of its own.
public struct RecordMerger: Sendable {
    public let kind: DataRecord.Kind
    public let freshness: Duration
    private var latest = FieldValues()
    private var seenAt = InlineArray<20, Duration>(repeating: .zero)

    public init(kind: DataRecord.Kind, freshness: Duration = .seconds(2)) {
        self.kind = kind
        self.freshness = freshness
    }

    /// Takes one decoded notification; returns a merged sample when it closes a record.
    public mutating func ingest(_ record: DataRecord, at time: Duration) -> DataRecord? {
        guard record.kind == kind, record.flags != nil else { return nil }
        for field in DataField.allCases {
            guard let raw = record.values.raw(field) else { continue }
            latest.set(field, raw: raw)
            seenAt[field.rawValue] = time
        }
        guard !record.moreData else { return nil }
        for field in DataField.allCases where !field.isRunningTotal && latest.contains(field) && time - seenAt[field.rawValue] > freshness {
            latest.remove(field)
        }
        var merged = DataRecord(kind: kind, values: latest)
        merged.truncated = record.truncated
        return merged
    }

    /// Forgets everything: a link that drops mid-record discards the partial record (FTMS §4.18).
    public mutating func reset() {
        latest = FieldValues()
    }
}

/// The workout engine (contract §5): merged samples, Status events, link events and time go in;
/// session events and summaries come out.
///
/// The module is pure so that live BLE and replay (contract §1, §8) run the very same sessions:
/// it reads no clock, does no I/O and draws no randomness it is not handed. Time arrives with
/// every input as a ``Timestamp`` (a monotonic instant for every interval, a wall-clock
/// instant only to label when a session started), and ``SessionEngine/tick(at:)`` lets idle
/// and grace timers fire when no samples come. Session ids come from an injected
/// ``SessionIDSource``.
///
/// The per-sample path (``SessionEngine``'s `ingest` of a merged record) allocates nothing:
/// every accumulator is a fixed-size value, and events, which are rare, are the only boxes.
public enum WorkoutEngine {
    /// Bumped when the summary JSON changes in a way a reader can observe.
    public static let summaryVersion = "1.0"
}

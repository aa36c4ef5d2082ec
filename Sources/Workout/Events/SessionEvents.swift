/// The events one input produced: at most four, in order, stored inline.
///
/// Four is the most one input can cause: the timers it advances can pause and end a session,
/// and the input itself can end it (a counter falling back) and start the next one. A fixed
/// inline store means the per-sample path, which almost always returns nothing, never
/// allocates an array.
public struct SessionEvents: Sendable, RandomAccessCollection {
    public static let capacity = 4
    private var storage = InlineArray<4, SessionEvent?>(repeating: nil)
    public private(set) var count = 0

    public init() {}

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> SessionEvent {
        precondition(position >= 0 && position < count, "SessionEvents index out of range")
        guard let event = storage[position] else { preconditionFailure("SessionEvents slot \(position) is empty") }
        return event
    }

    mutating func append(_ event: SessionEvent) {
        // The engine never produces more than `capacity`; should that ever change, the
        // latest event (the most informative: an end) replaces the last slot, never a trap.
        storage[Swift.min(count, Self.capacity - 1)] = event
        count = Swift.min(count + 1, Self.capacity)
    }

    mutating func append(contentsOf other: SessionEvents) {
        for event in other { append(event) }
    }
}

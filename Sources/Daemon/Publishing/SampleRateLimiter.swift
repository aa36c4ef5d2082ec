/// At most one `sample` per machine per `interval` on MQTT, the latest winning: a sample that
/// comes too soon replaces the one held, and the held one goes out when the interval is up
/// (the trailing edge), so the last sample before a machine stops is never lost.
///
/// Pure: the caller passes monotonic time and runs the trailing-edge timer.
struct SampleRateLimiter: Sendable {
    enum Decision: Equatable {
        /// Publish this sample now.
        case send
        /// Held; schedule a ``flush(machine:now:)`` in this long (`nil`: one is already due).
        case hold(flushAfter: Duration?)
    }

    private struct Slot {
        var lastSent: Duration?
        var pending: [UInt8]?
        var flushScheduled = false
    }

    let interval: Duration
    private var slots: [String: Slot] = [:]

    init(interval: Duration) {
        self.interval = interval
    }

    mutating func offer(_ envelope: [UInt8], machine: String, now: Duration) -> Decision {
        var slot = slots[machine, default: Slot()]
        defer { slots[machine] = slot }
        if let last = slot.lastSent, now - last < interval {
            slot.pending = envelope
            guard !slot.flushScheduled else { return .hold(flushAfter: nil) }
            slot.flushScheduled = true
            return .hold(flushAfter: interval - (now - last))
        }
        slot.lastSent = now
        slot.pending = nil
        return .send
    }

    /// The trailing edge: the latest held sample, now due, if one is held.
    mutating func flush(machine: String, now: Duration) -> [UInt8]? {
        guard var slot = slots[machine] else { return nil }
        defer { slots[machine] = slot }
        slot.flushScheduled = false
        guard let pending = slot.pending else { return nil }
        slot.pending = nil
        slot.lastSent = now
        return pending
    }
}

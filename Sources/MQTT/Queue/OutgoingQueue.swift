/// The client's bounded outgoing queue: callers append without waiting, the MQTT thread takes
/// messages for the broker, and QoS 1 messages stay until the broker acknowledges them.
///
/// Bounded by message count. When full, room is made by dropping, in this order: the oldest
/// QoS 0 message (a live sample, superseded a moment later), then the oldest waiting QoS 1
/// message. Messages handed to the broker and awaiting their PUBACK are never dropped (there
/// are at most `maximumInFlight` of them, below the capacity). A retained message replaces a
/// waiting retained message on the same topic in place: the broker would keep only the last.
/// A live message (``OutgoingMessage/live``) supersedes the live message still waiting on its
/// topic: the old one goes and the new one joins the end of the queue, after everything
/// queued before it, so an outage leaves at most one live message per topic to send.
///
/// Pure value type: the client guards it with a lock; tests drive it directly.
public struct OutgoingQueue: Sendable {
    public struct Entry: Sendable, Equatable {
        /// Unique within the queue; a new one when a retained message replaces the entry's, so
        /// the MQTT thread never marks the newer message sent for the older one it took.
        public var id: UInt64
        public var message: OutgoingMessage
        /// The libmosquitto message id while the broker has it and has not acknowledged it.
        public var inFlight: Int32?
    }

    public let capacity: Int
    public private(set) var entries: [Entry] = []
    public private(set) var dropped: UInt64 = 0
    private var nextID: UInt64 = 0

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    public var count: Int { entries.count }
    public var inFlightCount: Int { entries.count { $0.inFlight != nil } }

    /// Appends `message`, dropping what must go to make room; returns how many were dropped.
    @discardableResult
    public mutating func enqueue(_ message: OutgoingMessage) -> Int {
        if message.retain,
           let index = entries.firstIndex(where: { $0.inFlight == nil && $0.message.retain && $0.message.topic == message.topic }) {
            nextID += 1
            entries[index] = Entry(id: nextID, message: message, inFlight: nil)
            return 0
        }
        if message.live,
           let index = entries.firstIndex(where: { $0.inFlight == nil && $0.message.live && $0.message.topic == message.topic }) {
            entries.remove(at: index)
        }
        var droppedNow = 0
        while entries.count >= capacity {
            if let index = entries.firstIndex(where: { $0.inFlight == nil && $0.message.qos == .atMostOnce }) {
                entries.remove(at: index)
            } else if let index = entries.firstIndex(where: { $0.inFlight == nil }) {
                entries.remove(at: index)
            } else if message.qos == .atMostOnce {
                // Everything queued is in flight: the new sample is the one to lose.
                dropped += 1
                return 1
            } else {
                break  // capacity > maximumInFlight keeps this unreachable; never lose a QoS 1 for it
            }
            droppedNow += 1
        }
        dropped += UInt64(droppedNow)
        nextID += 1
        entries.append(Entry(id: nextID, message: message, inFlight: nil))
        return droppedNow
    }

    /// The oldest message not yet handed to the broker (a QoS 1 one only while the in-flight
    /// window has room).
    public func nextToSend(maximumInFlight: Int) -> Entry? {
        let windowFull = inFlightCount >= maximumInFlight
        return entries.first { $0.inFlight == nil && !(windowFull && $0.message.qos == .atLeastOnce) }
    }

    /// Records that entry `id` went to the broker: a QoS 0 message is done, a QoS 1 message
    /// waits for `messageID`'s acknowledgement. An entry dropped or replaced meanwhile is left
    /// alone (returns false).
    @discardableResult
    public mutating func markSent(id: UInt64, messageID: Int32) -> Bool {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return false }
        if entries[index].message.qos == .atMostOnce {
            entries.remove(at: index)
        } else {
            entries[index].inFlight = messageID
        }
        return true
    }

    /// Removes entry `id` (a message libmosquitto refused for good: bad topic, too large).
    public mutating func discard(id: UInt64) {
        entries.removeAll { $0.id == id }
    }

    /// The broker acknowledged `messageID`; returns whether it was ours.
    @discardableResult
    public mutating func acknowledge(_ messageID: Int32) -> Bool {
        guard let index = entries.firstIndex(where: { $0.inFlight == messageID }) else { return false }
        entries.remove(at: index)
        return true
    }

    /// The connection is gone: unacknowledged messages are sent again on the next one.
    public mutating func connectionLost() {
        for index in entries.indices { entries[index].inFlight = nil }
    }
}

/// What callers and the MQTT thread share, behind the client's one lock: the queue they fill
/// and it drains, the status they read and it writes, the subscriptions and the retained
/// messages it renews on each connection.
struct SharedState: Sendable {
    var queue: OutgoingQueue
    var status = MQTTStatus()
    /// The last retained message per topic, published again after every (re)connect.
    var retained: [String: OutgoingMessage] = [:]
    /// Topics in the order they were first retained, so a reconnect re-publishes in order.
    var retainedOrder: [String] = []
    var subscriptions: [Int: Subscription] = [:]
    var nextSubscriptionID = 0
    /// Subscriptions added or removed since the thread last looked (it sends SUBSCRIBE or
    /// UNSUBSCRIBE for them when connected).
    var subscriptionsChanged = false
    var removedFilters: [String] = []
    /// Set by `stop`: the thread flushes until `stopDeadline`, disconnects cleanly and ends.
    var stopRequested = false
    var stopDeadline: Int64 = 0
    var stopWaiters: [CheckedContinuation<Void, Never>] = []
    var stopped = false
    var started = false

    init(capacity: Int) {
        queue = OutgoingQueue(capacity: capacity)
    }

    mutating func remember(_ message: OutgoingMessage) {
        guard message.retain else { return }
        if message.payload.isEmpty {
            // An empty retained message deletes the topic's retained value: nothing to renew.
            retained[message.topic] = nil
            retainedOrder.removeAll { $0 == message.topic }
        } else {
            if retained[message.topic] == nil { retainedOrder.append(message.topic) }
            retained[message.topic] = message
        }
    }
}

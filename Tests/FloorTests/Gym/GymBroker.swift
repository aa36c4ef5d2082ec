import DeterministicRandom
import Floor

/// One floor message as the simulated broker carries it: the decoded value (every gateway reads
/// the same bytes), its topic, and what it cost on the wire.
struct GymMessage {
    enum Kind: String, CaseIterable { case presence, claim, checkpoint }
    enum Body {
        case presence(GatewayPresence)
        case claim(MachineClaim)
        case checkpoint(MirroredCheckpoint)
    }

    let topic: String
    let body: Body
    let bytes: Int

    var kind: Kind {
        switch body {
        case .presence: .presence
        case .claim: .claim
        case .checkpoint: .checkpoint
        }
    }
}

/// A broker as mosquitto behaves for the floor: every message retained (the newest per topic),
/// delivered to each connected subscriber in publishing order after a small random delay, the
/// retained store first on (re)connect; a subscriber that is not connected misses what is
/// published meanwhile.
struct GymBroker {
    private(set) var retained: [String: GymMessage] = [:]
    private var queues: [String: [(at: Duration, message: GymMessage)]] = [:]
    private var lastDelivery: [String: Duration] = [:]
    private(set) var connected: Set<String> = []
    private var random: SplitMix64
    /// Publishes and bytes received by the broker, by kind.
    private(set) var published: [GymMessage.Kind: (messages: Int, bytes: Int)] = [:]
    /// Messages and bytes the broker sent to subscribers (retained replays included), by kind.
    private(set) var delivered: [GymMessage.Kind: (messages: Int, bytes: Int)] = [:]

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    mutating func publish(_ message: GymMessage, at now: Duration) {
        published[message.kind, default: (0, 0)].messages += 1
        published[message.kind, default: (0, 0)].bytes += message.bytes
        retained[message.topic] = message
        for subscriber in connected.sorted() { enqueue(message, to: subscriber, at: now) }
    }

    /// Connects a subscriber; its retained replay is queued, and the instant it will all have
    /// arrived is returned.
    mutating func connect(_ subscriber: String, at now: Duration) -> Duration {
        connected.insert(subscriber)
        for topic in retained.keys.sorted() {
            if let message = retained[topic] { enqueue(message, to: subscriber, at: now) }
        }
        return lastDelivery[subscriber] ?? now
    }

    mutating func disconnect(_ subscriber: String) {
        connected.remove(subscriber)
        queues[subscriber] = []
    }

    /// What reaches `subscriber` by `now`, in order.
    mutating func deliver(to subscriber: String, by now: Duration) -> [GymMessage] {
        // In place: a copy of the queue taken out while it changes would copy it all.
        guard let count = queues[subscriber]?.prefix(while: { $0.at <= now }).count, count > 0 else { return [] }
        let due = queues[subscriber]?.prefix(count).map(\.message) ?? []
        queues[subscriber]?.removeFirst(count)
        return due
    }

    private mutating func enqueue(_ message: GymMessage, to subscriber: String, at now: Duration) {
        let delay = Duration.milliseconds(5 + Int64(random.next() % 46))
        let at = max(lastDelivery[subscriber] ?? .zero, now + delay)
        lastDelivery[subscriber] = at
        queues[subscriber, default: []].append((at, message))
        delivered[message.kind, default: (0, 0)].messages += 1
        delivered[message.kind, default: (0, 0)].bytes += message.bytes
    }
}

import DeterministicRandom
import MQTT
import Testing
import Workout

@Suite("OutgoingQueue: bounded, samples dropped first")
struct OutgoingQueueTests {
    private func sample(_ n: Int) -> OutgoingMessage { OutgoingMessage(topic: "s", text: "\(n)") }
    private func session(_ n: Int) -> OutgoingMessage { OutgoingMessage(topic: "q", text: "\(n)", qos: .atLeastOnce) }

    @Test func fullQueueDropsTheOldestQoS0BeforeAnyQoS1() {
        var queue = OutgoingQueue(capacity: 4)
        queue.enqueue(session(1))
        queue.enqueue(sample(1))
        queue.enqueue(session(2))
        queue.enqueue(sample(2))
        let droppedForSession3 = queue.enqueue(session(3))
        #expect(droppedForSession3 == 1)
        #expect(queue.entries.map { String(decoding: $0.message.payload, as: UTF8.self) } == ["1", "2", "2", "3"])
        #expect(queue.entries.map(\.message.topic) == ["q", "q", "s", "q"])
        let droppedForSession4 = queue.enqueue(session(4))
        #expect(droppedForSession4 == 1)  // the last sample goes
        #expect(queue.entries.allSatisfy { $0.message.qos == .atLeastOnce })
        // Only QoS 1 left: the oldest waiting one makes room.
        let droppedForSession5 = queue.enqueue(session(5))
        #expect(droppedForSession5 == 1)
        #expect(queue.entries.map { String(decoding: $0.message.payload, as: UTF8.self) } == ["2", "3", "4", "5"])
        #expect(queue.dropped == 3)
    }

    @Test func inFlightMessagesAreNeverDroppedAndComeBackAfterALostConnection() throws {
        var queue = OutgoingQueue(capacity: 3)
        queue.enqueue(session(1))
        queue.enqueue(session(2))
        let first = try #require(queue.nextToSend(maximumInFlight: 2))
        let firstMarked = queue.markSent(id: first.id, messageID: 7)
        #expect(firstMarked)
        let second = try #require(queue.nextToSend(maximumInFlight: 2))
        queue.markSent(id: second.id, messageID: 8)
        #expect(queue.nextToSend(maximumInFlight: 2) == nil)
        queue.enqueue(sample(1))
        // The window is full of QoS 1: a sample may still go.
        #expect(queue.nextToSend(maximumInFlight: 2)?.message == sample(1))
        // Full of in-flight QoS 1 plus a sample: a new sample replaces the old one.
        let droppedForSample2 = queue.enqueue(sample(2))
        #expect(droppedForSample2 == 1)
        #expect(queue.inFlightCount == 2)
        let acknowledged = queue.acknowledge(7)
        #expect(acknowledged)
        let acknowledgedTwice = queue.acknowledge(7)
        #expect(!acknowledgedTwice)
        queue.connectionLost()
        #expect(queue.inFlightCount == 0)
        #expect(queue.nextToSend(maximumInFlight: 2)?.message == session(2))
    }

    @Test func aRetainedMessageReplacesTheWaitingOneOnItsTopic() throws {
        var queue = OutgoingQueue(capacity: 10)
        queue.enqueue(OutgoingMessage(topic: "m/1/state", text: "connecting", qos: .atLeastOnce, retain: true))
        queue.enqueue(sample(1))
        let taken = try #require(queue.nextToSend(maximumInFlight: 5))
        queue.enqueue(OutgoingMessage(topic: "m/1/state", text: "ready", qos: .atLeastOnce, retain: true))
        #expect(queue.count == 2)
        // The thread took "connecting" before "ready" replaced it: marking it sent must not
        // mark "ready" sent.
        let staleMarked = queue.markSent(id: taken.id, messageID: 1)
        #expect(!staleMarked)
        #expect(queue.nextToSend(maximumInFlight: 5)?.message.payload == Array("ready".utf8))
    }

    /// A broker away: live samples of two machines pile up between session events. Each
    /// machine keeps its latest waiting sample, behind what was queued before it. One the MQTT
    /// thread took but had not marked sent is superseded as a retained message would be: its
    /// late mark leaves the newer one alone.
    @Test func aLiveMessageSupersedesTheOneWaitingOnItsTopic() throws {
        let live = { (topic: String, n: Int) in OutgoingMessage(topic: topic, text: "\(n)", live: true) }
        var queue = OutgoingQueue(capacity: 100)
        queue.enqueue(live("a", 1))
        let taken = try #require(queue.nextToSend(maximumInFlight: 5))
        queue.enqueue(session(1))
        queue.enqueue(live("a", 2))
        queue.enqueue(live("b", 1))
        queue.enqueue(live("a", 3))
        queue.enqueue(session(2))
        queue.enqueue(live("b", 2))
        queue.enqueue(sample(1))
        queue.enqueue(sample(2))
        #expect(queue.entries.map { "\($0.message.topic)\(String(decoding: $0.message.payload, as: UTF8.self))" }
            == ["q1", "a3", "q2", "b2", "s1", "s2"])
        #expect(queue.dropped == 0)
        let marked = queue.markSent(id: taken.id, messageID: 1)
        #expect(!marked)
        #expect(queue.count == 6)
    }

    /// Property: whatever is enqueued, the queue never exceeds its capacity and a QoS 1
    /// message is dropped only when no QoS 0 message is waiting.
    @Test func boundAndOrderHoldForRandomTraffic() {
        var random = SplitMix64(seed: 13)
        for _ in 0..<200 {
            // The client keeps capacity above the in-flight window (3 here), as MQTTConfiguration does.
            var queue = OutgoingQueue(capacity: 4 + Int(random.next() % 20))
            for _ in 0..<100 {
                let waitingSamples = queue.entries.filter { $0.inFlight == nil && $0.message.qos == .atMostOnce }.count
                let qos1Before = queue.entries.filter { $0.message.qos == .atLeastOnce }.count
                let message = random.next() % 2 == 0 ? sample(0) : session(0)
                let dropped = queue.enqueue(message)
                #expect(queue.count <= queue.capacity)
                if dropped > 0, waitingSamples > 0 {
                    let qos1After = queue.entries.filter { $0.message.qos == .atLeastOnce }.count
                    #expect(qos1After >= qos1Before)
                }
                if random.next() % 3 == 0, let next = queue.nextToSend(maximumInFlight: 3) {
                    queue.markSent(id: next.id, messageID: Int32(random.next() % 1000))
                }
            }
        }
    }
}


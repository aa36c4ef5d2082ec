@testable import BlueZ
import FTMS
import Synchronization
import Testing

/// The one way past a supervisor's stream: a notification goes to the reader's direct handler
/// only while every event sent before it has been reported handled, and one the handler refuses
/// goes through the stream, in order.
@Suite struct SupervisorEventSenderTests {
    final class Taken: Sendable {
        let values = Mutex<[[UInt8]]>([])
        let refuse = Mutex(false)
        func take(_ value: [UInt8]) -> Bool {
            if refuse.withLock({ $0 }) { return false }
            values.withLock { $0.append(value) }
            return true
        }
        var all: [[UInt8]] { values.withLock { $0 } }
    }

    /// A sender, its stream, and a direct handler that records what it takes.
    static func senderWithHandler() -> (AsyncStream<SupervisorEvent>, SupervisorEventSender, Taken) {
        let (stream, continuation) = AsyncStream.makeStream(of: SupervisorEvent.self)
        let sender = SupervisorEventSender(continuation)
        let taken = Taken()
        sender.handleDirectly { _, value in taken.take(value) }
        return (stream, sender, taken)
    }

    /// What the stream holds now, without waiting for more.
    static func drain(_ stream: AsyncStream<SupervisorEvent>, count: Int) async -> [String] {
        var seen: [String] = []
        var iterator = stream.makeAsyncIterator()
        while seen.count < count, let event = await iterator.next() {
            switch event {
            case .notification(_, let value): seen.append("n\(value.first ?? 0)")
            case .ready: seen.append("ready")
            case .disconnected: seen.append("disconnected")
            default: seen.append("other")
            }
        }
        return seen
    }

    @Test func withoutAHandlerEveryNotificationGoesThroughTheStream() async {
        let (stream, continuation) = AsyncStream.makeStream(of: SupervisorEvent.self)
        let sender = SupervisorEventSender(continuation)
        sender.notify(.indoorBikeData, [1])
        sender.notify(.indoorBikeData, [2])
        #expect(await Self.drain(stream, count: 2) == ["n1", "n2"])
    }

    @Test func aNotificationGoesDirectlyOnlyWhenNothingBeforeItIsUnfinished() async {
        let (stream, sender, taken) = Self.senderWithHandler()
        // Nothing sent yet: the handler takes it, and the stream never sees it.
        sender.notify(.indoorBikeData, [1])
        #expect(taken.all == [[1]])
        // An event the reader has not finished: what follows waits behind it in the stream.
        sender.send(.disconnected(reason: "test"))
        sender.notify(.indoorBikeData, [2])
        #expect(taken.all == [[1]])
        sender.handled()
        // Still one unfinished (the notification that went into the stream).
        sender.notify(.indoorBikeData, [3])
        #expect(taken.all == [[1]])
        sender.handled()
        sender.handled()
        // Everything handled: direct again.
        sender.notify(.indoorBikeData, [4])
        #expect(taken.all == [[1], [4]])
        #expect(await Self.drain(stream, count: 3) == ["disconnected", "n2", "n3"])
    }

    @Test func aRefusedNotificationGoesThroughTheStreamAndAClearedHandlerTakesNone() async {
        let (stream, sender, taken) = Self.senderWithHandler()
        taken.refuse.withLock { $0 = true }
        sender.notify(.indoorBikeData, [1])
        sender.handled()
        taken.refuse.withLock { $0 = false }
        sender.handleDirectly(nil)
        sender.notify(.indoorBikeData, [2])
        #expect(taken.all.isEmpty)
        #expect(await Self.drain(stream, count: 2) == ["n1", "n2"])
    }

    /// The gate holds what comes before `.ready`; once open it forwards through the sender, so
    /// the held frames, sent after `.ready`, are unfinished until the reader says so, and a new
    /// frame cannot overtake them.
    @Test func framesHeldByTheGateAreNeverOvertakenByADirectOne() async {
        let (stream, sender, taken) = Self.senderWithHandler()
        let gate = ReadyGate(events: sender)
        gate.deliver(.indoorBikeData, [1])
        gate.deliver(.indoorBikeData, [2])
        gate.open(ready: MachineInfo(path: "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_01", name: "SF-Bike-0001", address: "AA:BB:CC:DD:EE:01", type: .bike))
        gate.deliver(.indoorBikeData, [3])
        #expect(taken.all.isEmpty)
        for _ in 0..<4 { sender.handled() }
        gate.deliver(.indoorBikeData, [4])
        #expect(taken.all == [[4]])
        #expect(await Self.drain(stream, count: 4) == ["ready", "n1", "n2", "n3"])
    }
}

import OwnThread
import BlueZTesting
import TestSupport
import DBus
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// UNIX_FD (`h`) values and sockets read on the bus thread, through a real dbus-daemon: the
/// shape of BlueZ's AcquireNotify (a SEQPACKET socketpair end in a method reply).
@Suite("DBus file descriptors on a real dbus-daemon", .serialized)
struct FileDescriptorTests {
    /// A server that answers `Acquire` with one end of a fresh socketpair and keeps the other.
    final class PairServer: Sendable {
        let kept = Mutex<[Int32]>([])

        func serve(_ connection: DBusConnection) throws {
            try connection.export(path: "/pair") { [self] call in
                var pair: [Int32] = [-1, -1]
                guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                    call.replier.fail(name: "org.example.Error.Failed", message: "socketpair")
                    return
                }
                kept.withLock { $0.append(pair[0]) }
                // The value owns pair[1]: libdbus dups it into the reply, then it is closed here.
                call.replier.reply([.unixFD(DBusFileDescriptor(owning: pair[1])), .uint16(247)])
            }
        }

        func send(_ bytes: [UInt8], on index: Int = 0) -> Bool {
            let descriptor = kept.withLock { $0[index] }
            return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
        }

        /// Closes our end of pair `index` once (the number is forgotten, so ``closeAll()`` and a
        /// second hang-up cannot close a descriptor that has since been reused elsewhere).
        func hangUp(_ index: Int = 0) {
            kept.withLock {
                guard $0[index] >= 0 else { return }
                _ = close($0[index])
                $0[index] = -1
            }
        }

        func closeAll() {
            for index in kept.withLock({ $0.indices }) { hangUp(index) }
        }
    }

    /// A private bus, the pair server on it as `org.example.Pair`, and a client.
    struct PairRig {
        let bus: PrivateBus
        let server: DBusConnection
        let client: DBusConnection
        let pairs = PairServer()

        init() async throws {
            bus = try PrivateBus()
            do {
                server = try await DBusConnection.connect(address: bus.address)
                client = try await DBusConnection.connect(address: bus.address)
                #expect(try await server.requestName("org.example.Pair"))
                try pairs.serve(server)
            } catch {
                bus.stop()
                throw error
            }
        }

        func stop() {
            server.close()
            client.close()
            pairs.closeAll()
            bus.stop()
        }
    }

    /// Datagrams and the end of the stream, as the bus thread delivers them.
    final class Received: Sendable {
        let datagrams = Mutex<[[UInt8]]>([])
        let ends = Mutex<[String]>([])

        func waitFor(_ what: String, _ condition: @escaping @Sendable (Received) -> Bool) async -> Bool {
            guard (try? await eventually(.seconds(5), { condition(self) })) == true else {
                Issue.record("timed out waiting for \(what)")
                return false
            }
            return true
        }
    }

    private func acquire(_ client: DBusConnection) async throws -> [DBusValue] {
        try await client.call(destination: "org.example.Pair", path: "/pair", interface: "org.example.Pair", member: "Acquire")
    }

    @Test func aDescriptorFromAReplyIsOwnedReadAndHungUp() async throws {
        let rig = try await PairRig()
        defer { rig.stop() }
        let (client, pairs) = (rig.client, rig.pairs)
        let reply = try await acquire(client)
        #expect(reply.count == 2)
        #expect(reply[1] == .uint16(247))
        let descriptor = try #require(reply.first?.fileDescriptor)
        #expect(reply.first?.signature == "h")
        let number = try #require(descriptor.number)
        // A new descriptor in this process, open, and a SEQPACKET socket.
        #expect(fcntl(number, F_GETFD) >= 0)
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        #expect(getsockopt(number, SOL_SOCKET, SO_TYPE, &type, &length) == 0)
        #expect(type == Int32(SOCK_SEQPACKET.rawValue))

        let received = Received()
        let reading = client.readDatagrams(
            from: descriptor, maximumSize: 247,
            onDatagram: { value in received.datagrams.withLock { $0.append(value) } },
            onEnd: { reason in received.ends.withLock { $0.append(reason) } })
        let subscription = try #require(reading)
        // Taken: the value no longer owns it, and a second reader cannot have it.
        #expect(descriptor.number == nil)
        #expect(client.readDatagrams(from: descriptor, maximumSize: 20, onDatagram: { _ in }, onEnd: { _ in }) == nil)

        let frames: [[UInt8]] = (0..<40).map { [0x44, 0x02, UInt8($0), UInt8(255 - $0)] } + [[], [0x01]]
        for frame in frames { #expect(pairs.send(frame)) }
        #expect(await received.waitFor("every datagram") { $0.datagrams.withLock { $0.count } == frames.count })
        // One datagram each, in order, an empty one included (not mistaken for the end).
        #expect(received.datagrams.withLock { $0 } == frames)
        #expect(received.ends.withLock { $0 }.isEmpty)

        pairs.hangUp()
        #expect(await received.waitFor("the hang-up") { !$0.ends.withLock { $0 }.isEmpty })
        #expect(received.ends.withLock { $0 } == ["the peer hung up"])
        // Ended once: closing afterwards reports nothing more, and that it closed nothing.
        #expect(await subscription.close() == false)
        #expect(received.ends.withLock { $0 }.count == 1)
    }

    /// A peer that sends an empty datagram, then more, then hangs up before the bus thread
    /// reads any of it: every datagram arrives, the ones after the empty one included, and
    /// only then the end (SIOCINQ tells the empty datagram's 0 bytes from the end's while
    /// something is queued behind it; a trailing empty datagram after a hang-up still cannot be
    /// told from the end).
    @Test func datagramsQueuedBehindAnEmptyOneSurviveTheHangUp() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let client = try await DBusConnection.connect(address: bus.address)
        defer { client.close() }
        var ends: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0)
        let frames: [[UInt8]] = [[0x44, 0x02], [], [0x01, 0x02, 0x03], [], [0x04]]
        for frame in frames { _ = frame.withUnsafeBytes { send(ends[1], $0.baseAddress, $0.count, 0) } }
        _ = close(ends[1])
        let received = Received()
        let subscription = client.readDatagrams(
            from: DBusFileDescriptor(owning: ends[0]), maximumSize: 20,
            onDatagram: { value in received.datagrams.withLock { $0.append(value) } },
            onEnd: { reason in received.ends.withLock { $0.append(reason) } })
        #expect(subscription != nil)
        #expect(await received.waitFor("the hang-up") { !$0.ends.withLock { $0 }.isEmpty })
        #expect(received.datagrams.withLock { $0 } == frames)
        #expect(received.ends.withLock { $0 } == ["the peer hung up"])
    }

    /// Closing closes our end before it returns, so the peer already has the hang-up (how a
    /// client gives an acquired socket back to BlueZ), and a value nobody took closes its descriptor.
    @Test func closingClosesAndUntakenDescriptorsClose() async throws {
        let rig = try await PairRig()
        defer { rig.stop() }
        let (client, pairs) = (rig.client, rig.pairs)
        let first = try await acquire(client)
        let received = Received()
        let firstDescriptor = try #require(first.first?.fileDescriptor)
        let socket = try #require(firstDescriptor.number.flatMap(socketInode))
        let reading = client.readDatagrams(
            from: firstDescriptor, maximumSize: 23,
            onDatagram: { value in received.datagrams.withLock { $0.append(value) } },
            onEnd: { reason in received.ends.withLock { $0.append(reason) } })
        let subscription = try #require(reading)
        #expect(pairs.send([1, 2, 3]))
        #expect(await received.waitFor("a datagram") { $0.datagrams.withLock { $0.count } == 1 })
        // Closing returns once the socket is closed: no copy of our end is left, and the peer
        // has the hang-up.
        #expect(await subscription.close())
        #expect(received.ends.withLock { $0 } == ["cancelled"])
        #expect(descriptorsOpen(onSocket: socket) == 0)
        let kept = pairs.kept.withLock { $0[0] }
        #expect(await Self.hangUp(on: kept))

        // A reply whose descriptor nobody takes: dropping the value closes it, so the peer hangs up.
        var second: [DBusValue]? = try await acquire(client)
        #expect(second?.first?.fileDescriptor?.number != nil)
        second = nil
        _ = second
        let other = pairs.kept.withLock { $0[1] }
        #expect(await Self.hangUp(on: other))
    }

    /// Whether the peer hangs up `descriptor` (waited for a minute at most, a hang detector,
    /// on a thread of its own rather than the cooperative pool's).
    static func hangUp(on descriptor: Int32) async -> Bool {
        await onOwnThread {
            var probe = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            return poll(&probe, 1, 60_000) == 1 && probe.revents & Int16(POLLHUP) != 0
        }
    }

    /// A tap sees its path's signals first and a consumed one reaches no stream.
    @Test func aTapConsumesItsPathsSignalsBeforeTheStreams() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let emitter = try await DBusConnection.connect(address: bus.address)
        let listener = try await DBusConnection.connect(address: bus.address)
        defer {
            emitter.close()
            listener.close()
        }
        let stream = try await listener.signals(matching: MatchRule(interface: "org.example.Tap", member: "Tick"))
        let tapped = Mutex<[Int32]>([])
        let tap = listener.tapSignals(path: "/tapped") { signal in
            guard case .int32(let value)? = signal.arguments.first else { return false }
            tapped.withLock { $0.append(value) }
            return value % 2 == 0
        }
        for value in Int32(0)..<6 {
            try emitter.emitSignal(path: "/tapped", interface: "org.example.Tap", member: "Tick", arguments: [.int32(value)])
        }
        try emitter.emitSignal(path: "/other", interface: "org.example.Tap", member: "Tick", arguments: [.int32(100)])
        var streamed: [Int32] = []
        for await signal in stream {
            if case .int32(let value)? = signal.arguments.first { streamed.append(value) }
            if streamed.last == 100 { break }
        }
        // Even values were consumed by the tap; odd ones and the other path's reach the stream.
        #expect(streamed == [1, 3, 5, 100])
        #expect(tapped.withLock { $0 } == [0, 1, 2, 3, 4, 5])
        tap.cancel()
        try emitter.emitSignal(path: "/tapped", interface: "org.example.Tap", member: "Tick", arguments: [.int32(8)])
        for await signal in stream {
            #expect(signal.arguments.first == .int32(8))
            break
        }
        #expect(tapped.withLock { $0 }.count == 6)
    }
}

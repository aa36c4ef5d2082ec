import TestSupport
import DBus
import Daemon
import Foundation
import NIOPosix
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `EventLoopDatagramReader` on a real `SOCK_SEQPACKET` socketpair, as BlueZ hands one over
/// with AcquireNotify: datagrams in order, an empty one delivered without ending the read
/// (NIO alone would take its 0 bytes for the end), a long one cut, the peer's hang-up ending it
/// once after what was queued (behind an empty datagram too), and a close giving the socket
/// back before it returns.
@Suite("Daemon: acquired sockets read on the event loop")
struct EventLoopDatagramReaderTests {
    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var datagrams: [[UInt8]] = []
        private var ends: [String] = []
        func datagram(_ bytes: [UInt8]) { lock.withLock { datagrams.append(bytes) } }
        func end(_ reason: String) { lock.withLock { ends.append(reason) } }
        var all: [[UInt8]] { lock.withLock { datagrams } }
        var ended: [String] { lock.withLock { ends } }
    }

    /// (ours, BlueZ's): the first is handed to the reader, the second written to like BlueZ.
    /// Close-on-exec, as libdbus receives BlueZ's: a child another test spawns meanwhile must
    /// not inherit a copy, or the peer would not see the hang-up when the reader closes ours.
    private static func pair() throws -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else { throw POSIXError(.EIO) }
        let flags = fcntl(ends[0], F_GETFL)
        _ = fcntl(ends[0], F_SETFL, flags | O_NONBLOCK)
        return (ends[0], ends[1])
    }

    private static func send(_ descriptor: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
    }

    private static let reader = EventLoopDatagramReader(loop: MultiThreadedEventLoopGroup.singleton.next())

    @Test func datagramsInOrderAnEmptyOneIncludedThenTheHangUpOnce() async throws {
        let (ours, peer) = try Self.pair()
        let received = Received()
        let subscription = Self.reader.read(
            descriptor: ours, maximumSize: 20, onDatagram: received.datagram, onEnd: received.end)
        Self.send(peer, [0x44, 0x02, 0x10, 0x27])
        Self.send(peer, [])
        Self.send(peer, [0x01])
        #expect(try await eventually { received.all.count == 3 })
        // Reading goes on after the empty datagram, and it is seen as one.
        Self.send(peer, [0x02, 0x03])
        Self.send(peer, [])
        Self.send(peer, Array(repeating: 0xAB, count: 30))  // longer than the MTU: cut
        Self.send(peer, [0x04])
        _ = Glibc.close(peer)
        #expect(try await eventually { received.ended.count == 1 })
        #expect(received.all == [[0x44, 0x02, 0x10, 0x27], [], [0x01], [0x02, 0x03], [], Array(repeating: 0xAB, count: 20), [0x04]])
        #expect(received.ended == ["the peer hung up"])
        // Closing after the end says nothing more, and that it closed nothing.
        #expect(await subscription.close() == false)
        #expect(received.ended == ["the peer hung up"])
    }

    /// Everything sent, an empty datagram among it, and the peer gone before reading starts:
    /// what follows the empty datagram still arrives (bytes queued behind the 0 say it was a
    /// datagram), then the end.
    @Test func datagramsQueuedBehindAnEmptyOneSurviveTheHangUp() async throws {
        let (ours, peer) = try Self.pair()
        let frames: [[UInt8]] = [[0x44, 0x02], [], [0x01, 0x02, 0x03], [], [0x04]]
        for frame in frames { Self.send(peer, frame) }
        _ = Glibc.close(peer)
        let received = Received()
        let subscription = Self.reader.read(
            descriptor: ours, maximumSize: 20, onDatagram: received.datagram, onEnd: received.end)
        #expect(try await eventually { received.ended.count == 1 })
        #expect(received.all == frames)
        #expect(received.ended == ["the peer hung up"])
        await subscription.close()
    }

    /// Whether the peer has its hang-up (soon: a child another test is spawning holds copies
    /// of our descriptors until it execs).
    private static func hungUp(_ peer: Int32) async throws -> Bool {
        try await eventually(.seconds(10)) {
            var probe = pollfd(fd: peer, events: Int16(POLLIN), revents: 0)
            return poll(&probe, 1, 0) == 1 && probe.revents & Int16(POLLHUP) != 0
        }
    }

    /// A pair whose end is being read: the subscription, what it received, the peer's end
    /// (the caller closes it) and our end's socket inode.
    private static func reading() throws -> (DatagramSubscription, Received, peer: Int32, socket: UInt64) {
        let (ours, peer) = try pair()
        guard let socket = socketInode(ours) else { throw POSIXError(.EBADF) }
        let received = Received()
        let subscription = reader.read(descriptor: ours, maximumSize: 20, onDatagram: received.datagram, onEnd: received.end)
        return (subscription, received, peer, socket)
    }

    /// Closing returns only once our descriptor and the channel's duplicate are both closed,
    /// so the peer (BlueZ) has its hang-up before the caller goes on to disconnect.
    @Test func closingReturnsOnceNoCopyIsLeftOpen() async throws {
        let (subscription, received, peer, socket) = try Self.reading()
        defer { _ = Glibc.close(peer) }
        Self.send(peer, [0x01])
        #expect(try await eventually { received.all == [[0x01]] })
        #expect(descriptorsOpen(onSocket: socket) == 2)
        #expect(await subscription.close())
        #expect(descriptorsOpen(onSocket: socket) == 0)
        #expect(try await Self.hungUp(peer))
        #expect(received.ended == ["cancelled"])
        Self.send(peer, [0x02])
        try await Task.sleep(for: .milliseconds(100))
        #expect(received.all == [[0x01]])
        #expect(received.ended == ["cancelled"])
        #expect(await subscription.close() == false)
    }

    /// Closed at once, while the channel on the duplicate is still being set up: the
    /// duplicate is closed too before close() returns.
    @Test func closingBeforeTheChannelIsUpClosesTheDuplicateToo() async throws {
        for _ in 0..<20 {
            let (subscription, _, peer, socket) = try Self.reading()
            defer { _ = Glibc.close(peer) }
            #expect(await subscription.close())
            #expect(descriptorsOpen(onSocket: socket) == 0)
            #expect(try await Self.hungUp(peer))
        }
    }
}

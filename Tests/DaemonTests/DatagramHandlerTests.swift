@testable import Daemon
import NIOCore
import NIOEmbedded
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The handler that hands an acquired socket's datagrams to their reader, on an
/// `EmbeddedChannel` (the reader's own descriptor is a real socketpair end, for the hang-up
/// check): each datagram cut to its size, an error ending the read once, and a channel that
/// ends after the peer hung up ending it as a hang-up.
@Suite("Daemon: datagram handler")
struct DatagramHandlerTests {
    typealias Received = EventLoopDatagramReaderTests.Received

    /// A handler reading for a socket whose descriptor is one end of a fresh SOCK_SEQPACKET
    /// pair; the other end is returned, for the test to hang up.
    static func handler(maximumSize: Int, into received: Received) throws -> (EmbeddedChannel, peer: Int32, own: Int32) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else { throw IOError(errnoCode: errno, reason: "socketpair") }
        let channel = EmbeddedChannel()
        let socket = EventLoopDatagramSocket(
            descriptor: ends[0], maximumSize: maximumSize, loop: channel.eventLoop,
            onDatagram: { received.datagram($0) }, onEnd: { received.end($0) })
        try channel.pipeline.syncOperations.addHandler(DatagramHandler(socket: socket))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        return (channel, ends[1], ends[0])
    }

    /// Closes the test's end of the pair and waits until the handler's end sees the hang-up.
    /// Suites run in parallel in one process, and one that starts a child process forks it:
    /// until that child execs (the pair is close-on-exec), it holds a copy of the test's end,
    /// and the handler's check would find the peer still there (a fresh clone's sockets group
    /// once did). Past 10 s it returns, and the expectation that follows says what was seen.
    static func hangUp(_ peer: Int32, seenBy own: Int32) {
        close(peer)
        for _ in 0..<200 {
            var probe = pollfd(fd: own, events: Int16(POLLIN), revents: 0)  // nothing is queued on it: readable means the end of file
            if poll(&probe, 1, 50) > 0 { return }
        }
    }

    @Test func eachDatagramIsHandedOnCutToItsSize() throws {
        let received = Received()
        let (channel, peer, own) = try Self.handler(maximumSize: 4, into: received)
        try channel.writeInbound(ByteBuffer(bytes: [1, 2, 3]))
        try channel.writeInbound(ByteBuffer(bytes: [1, 2, 3, 4, 5, 6]))
        #expect(received.all == [[1, 2, 3], [1, 2, 3, 4]])
        #expect(received.ended.isEmpty)
        // (A channel ending while the peer is still there reads on with a new one, which
        // needs a real event loop: the peer goes first.)
        Self.hangUp(peer, seenBy: own)
        _ = try? channel.finish()
        #expect(received.ended == ["the peer hung up"])
    }

    /// A channel ending with the peer still there was an empty datagram: a new channel reads
    /// on, which an `EmbeddedEventLoop` cannot make. That is an end with its reason, not a trap
    /// (`NIOPipeBootstrap(group:)` traps on such a loop; a fresh clone's run lost 156 tests to it).
    @Test func aLoopThatCannotReadDescriptorsEndsTheReadInsteadOfTrapping() throws {
        let received = Received()
        let (channel, peer, _) = try Self.handler(maximumSize: 4, into: received)
        defer { close(peer) }
        _ = try? channel.finish()
        #expect(received.all == [[]])
        #expect(received.ended == ["cannot read the socket (its event loop cannot read descriptors)"])
    }

    @Test func anErrorEndsTheReadOnceAndClosesTheChannel() throws {
        let received = Received()
        let (channel, peer, _) = try Self.handler(maximumSize: 4, into: received)
        defer { close(peer) }
        channel.pipeline.fireErrorCaught(IOError(errnoCode: EIO, reason: "read"))
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
        #expect(received.ended.count == 1 && received.ended.first?.hasPrefix("read failed") == true, "\(received.ended)")
        try channel.writeInbound(ByteBuffer(bytes: [9]))
        #expect(received.all.isEmpty)
    }

    /// The channel on the duplicate ends, and the socket's peer has hung up with nothing
    /// queued: that is the end of the read, said once.
    @Test func aChannelEndingAfterTheHangUpIsTheEnd() throws {
        let received = Received()
        let (channel, peer, own) = try Self.handler(maximumSize: 4, into: received)
        Self.hangUp(peer, seenBy: own)
        try channel.close().wait()
        #expect(received.ended == ["the peer hung up"])
        #expect(received.all.isEmpty)
    }
}

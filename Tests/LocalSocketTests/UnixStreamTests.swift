import TestSupport
import Foundation
import Glibc
import LocalSocket
import Testing

/// The sockets' one client against a real peer on a real Unix socket: lines cut by the
/// sockets' framer and bounded by its limit, every wait bounded by its deadline, and every way
/// a connection fails named.
@Suite("Unix stream client")
struct UnixStreamTests {
    /// A listener at a fresh path whose one client gets `script` and then a close (or, with
    /// `hold`, nothing more until the test ends).
    final class Peer: @unchecked Sendable {
        let directory: TemporaryDirectory
        let path: String
        private let descriptor: Int32

        init(sending script: [UInt8], hold: Bool = false) throws {
            directory = try TemporaryDirectory()
            path = directory.file("peer.sock")
            descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let bound = UnixSocketAddress.with(path: path) { bind(descriptor, $0, $1) }
            guard bound == 0, listen(descriptor, 4) == 0 else { throw SystemCallFailed(call: "bind/listen \(path)", code: errno) }
            let listener = descriptor
            Thread.detachNewThread {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                _ = script.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if hold {
                    var byte: UInt8 = 0
                    _ = recv(client, &byte, 1, 0)  // until the test's client goes
                }
                close(client)
            }
        }

        deinit {
            close(descriptor)
        }
    }

    @Test func linesAsTheyComeThenTheClose() throws {
        let peer = try Peer(sending: Array("one\ntwo\r\n\nthr".utf8))
        var stream = try UnixStream.connect(to: peer.path, deadline: .now + .seconds(20))
        #expect(try stream.readLine(deadline: .now + .seconds(20)) == Array("one".utf8))
        #expect(try stream.readLine(deadline: .now + .seconds(20)) == Array("two".utf8))
        #expect(try stream.readLine(deadline: .now + .seconds(20)) == [])
        #expect(throws: UnixStreamError.closed(partial: 3)) { try stream.readLine(deadline: .now + .seconds(20)) }
    }

    /// The limit holds before the newline comes: a peer streaming without one is cut off.
    @Test func aLineOverTheLimitEndsTheRead() throws {
        let peer = try Peer(sending: Array(repeating: UInt8(ascii: "x"), count: 100), hold: true)
        var stream = try UnixStream.connect(to: peer.path, deadline: .now + .seconds(20), lineLimit: 64)
        #expect(throws: UnixStreamError.lineTooLong(limit: 64)) { try stream.readLine(deadline: .now + .seconds(20)) }
    }

    @Test func aSilentPeerIsWaitedForUntilTheDeadline() throws {
        let peer = try Peer(sending: [], hold: true)
        var stream = try UnixStream.connect(to: peer.path, deadline: .now + .seconds(20))
        #expect(throws: UnixStreamError.timedOut) { try stream.readLine(deadline: .now + .milliseconds(50)) }
    }

    @Test func whyAConnectionFailsIsNamed() throws {
        let directory = try TemporaryDirectory()
        do {
            _ = try UnixStream.connect(to: directory.file("nothing.sock"), deadline: .now + .seconds(20))
            Issue.record("connected to nothing")
        } catch {
            #expect(error == .cannotConnect(errno: ENOENT) && error.isNothingListening)
            #expect(error.description == "cannot connect: No such file or directory")
        }
        let tooLong = "/tmp/" + String(repeating: "p", count: UnixSocketAddress.maximumPathLength)
        #expect(throws: UnixStreamError.pathTooLong) { try UnixStream.connect(to: tooLong, deadline: .now + .seconds(20)) }
        #expect(SocketProbe.connect(directory.file("nothing.sock")) == .gone)
    }
}

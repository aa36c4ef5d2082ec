import TestSupport
import Foundation
import Clocks
import Workout
import Dashboard
import NIOCore
import Publish
import Testing

@Suite("ClientMailbox")
struct MailboxTests {
    let frame = ByteBuffer(repeating: UInt8(ascii: "x"), count: 1000)

    @Test func aBrowserThatStopsReadingLosesSamplesThenIsResyncedNeverGrowing() async {
        let mailbox = ClientMailbox(limits: ReaderLimits(soft: 10_000, hard: 40_000))
        for _ in 0..<50 { mailbox.offer(frame, live: true) }
        #expect(mailbox.queuedBytes == 10_000)
        #expect(mailbox.losses.dropped == 40)
        for _ in 0..<30 { mailbox.offer(frame, live: false) }
        #expect(mailbox.queuedBytes == 40_000, "state changes still go in past the soft limit")
        mailbox.offer(frame, live: false)
        #expect(mailbox.queuedBytes == 0 && mailbox.losses.resyncs == 1)
        for _ in 0..<1000 { mailbox.offer(frame, live: false) }
        #expect(mailbox.queuedBytes == 0, "after an overflow nothing queues until the snapshot goes")
        #expect(await mailbox.next() == .resync)
        mailbox.offer(frame, live: false)
        #expect(await mailbox.next() == .frame(frame))
    }

    @Test func framesComeOutInOrderAndAWaitingReaderIsWokenAndClosed() async throws {
        let mailbox = ClientMailbox(limits: ReaderLimits())
        for index in 0..<5 { mailbox.offer(ByteBuffer(string: "\(index)"), live: index % 2 == 0) }
        for index in 0..<5 { #expect(await mailbox.next() == .frame(ByteBuffer(string: "\(index)"))) }
        let waiting = Task { await mailbox.next() }
        try await Task.sleep(for: .milliseconds(20))
        mailbox.offer(ByteBuffer(string: "late"), live: true)
        #expect(await waiting.value == .frame(ByteBuffer(string: "late")))
        let closing = Task { await mailbox.next() }
        try await Task.sleep(for: .milliseconds(20))
        mailbox.close()
        #expect(await closing.value == nil)
        mailbox.offer(frame, live: false)
        #expect(await mailbox.next() == nil)
    }

    @Test func cancellingTheReaderEndsIt() async {
        let mailbox = ClientMailbox(limits: ReaderLimits())
        let reader = Task { await mailbox.next() }
        reader.cancel()
        #expect(await reader.value == nil)
    }
}

@Suite("Access")
struct AccessTests {
    @Test(arguments: [("127.0.0.1:8088", true), ("localhost:0", true), ("[::1]:9", true), (":8088", true), ("127.1.2.3:1", true), ("0.0.0.0:8088", false), ("192.168.1.5:80", false), ("[::]:80", false)])
    func loopbackIsDecidedOnTheAddress(text: String, loopback: Bool) throws {
        #expect(try ListenAddress(parsing: text).isLoopback == loopback)
    }

    @Test(arguments: ["8088", "host:80", "127.0.0.1:70000", "127.0.0.1:x", "example.com:80"])
    func badListenAddressesAreOneLineErrors(text: String) {
        #expect(throws: ListenAddressError.self) { try ListenAddress(parsing: text) }
    }

    @Test func aTokenFileMustBePrivate() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/token"
        try "0123456789abcdef-token\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o644)
        #expect(throws: AccessTokenError.tooOpen(path: path, mode: 0o644)) { try AccessToken(file: path) }
        chmod(path, 0o600)
        let token = try AccessToken(file: path)
        #expect(token.matches("0123456789abcdef-token"))
        #expect(!token.matches("0123456789abcdef-toke"))
        #expect(!token.matches("0123456789abcdef-tokenX"))
        #expect(!"\(token)".contains("0123"), "the token never reaches a log line")
        #expect(throws: AccessTokenError.tooShort(minimum: AccessToken.minimumLength)) { try AccessToken(value: "short") }
        #expect(throws: AccessTokenError.self) { try AccessToken(file: directory.path + "/missing") }
    }

    @Test func aPublicAddressWithoutATokenIsRefusedBeforeBinding() throws {
        let configuration = DashboardServer.Configuration(listen: try ListenAddress(parsing: "0.0.0.0:0"))
        #expect(throws: DashboardServerError.self) {
            try DashboardServer(configuration: configuration, sources: [], clock: .fixed(UTCTime(millisecondsSince1970: 0)), log: { _ in })
        }
    }
}

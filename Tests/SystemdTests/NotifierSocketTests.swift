import Dispatch
import Glibc
import Systemd
import Testing

/// sd_notify against a real `AF_UNIX` datagram socket standing in for systemd's.
@Suite("sd_notify over a real socket")
struct NotifierSocketTests {
    static let clock: @Sendable () -> UInt64 = { 123_456_789 }

    /// Known answers: the exact bytes systemd reads for each state.
    @Test(arguments: [
        (NotifyState.ready, "READY=1"),
        (.stopping, "STOPPING=1"),
        (.watchdog, "WATCHDOG=1"),
        (.watchdogTrigger, "WATCHDOG=trigger"),
        (.status("2 machines connected, 0 pending"), "STATUS=2 machines connected, 0 pending"),
        (.reloading, "RELOADING=1\nMONOTONIC_USEC=123456789"),
        (.mainPID(4242), "MAINPID=4242"),
        (.errno(5), "ERRNO=5"),
        (.extendTimeout(.milliseconds(2500)), "EXTEND_TIMEOUT_USEC=2500000"),
        (.watchdogTimeout(.seconds(30)), "WATCHDOG_USEC=30000000"),
    ])
    func eachStateOnAPathSocket(state: NotifyState, expected: String) throws {
        let receiver = try NotifyReceiver(.path)
        let notifier = receiver.notifier(monotonicMicroseconds: Self.clock)
        #expect(notifier.address == .path(receiver.notifySocket))
        try notifier.send([state])
        #expect(receiver.receive() == Array(expected.utf8))
    }

    /// Several states in one datagram, in order, joined by newlines, with no trailing one.
    @Test func multipleStatesInOneDatagram() throws {
        let receiver = try NotifyReceiver(.path)
        let notifier = receiver.notifier()
        try notifier.send(.status("store open, sockets bound"), .ready)
        try notifier.send(.stopping, .status("checkpointing 2 sessions"))
        #expect(receiver.receiveText() == "STATUS=store open, sockets bound\nREADY=1")
        #expect(receiver.receiveText() == "STOPPING=1\nSTATUS=checkpointing 2 sessions")
    }

    /// `@name` is Linux's abstract namespace: no file, a leading NUL in the address.
    @Test func abstractNamespaceSocket() throws {
        let receiver = try NotifyReceiver(.abstract)
        let notifier = receiver.notifier()
        guard case .abstract(let name) = notifier.address else {
            Issue.record("\(receiver.notifySocket) did not parse as abstract")
            return
        }
        #expect("@" + name == receiver.notifySocket)
        try notifier.send(.ready)
        try notifier.send(.watchdog)
        #expect(receiver.receiveText() == "READY=1")
        #expect(receiver.receiveText() == "WATCHDOG=1")
    }

    /// A status with line breaks reaches systemd as one line; otherwise systemd would read the
    /// second line as a state of its own (here, a forged READY=1).
    @Test func statusIsSanitisedOnTheWire() throws {
        let receiver = try NotifyReceiver(.path)
        let notifier = receiver.notifier()
        try notifier.send(.status("bike lost\nREADY=1\r\u{0}x"))
        #expect(receiver.receiveText() == "STATUS=bike lost READY=1  x")
    }

    /// Property: whatever text a status carries, the datagram is one valid UTF-8 line without
    /// NUL, starting `STATUS=`, within the limit.
    @Test func anyStatusIsOneLineWithinTheLimit() throws {
        let receiver = try NotifyReceiver(.path)
        let notifier = receiver.notifier()
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Unicode.Scalar] = ["a", "Z", " ", "\n", "\r", "\u{0}", "\t", "\u{7F}", "\u{85}", "\u{2028}", "\u{2029}", "é", "€", "🚲", "="]
        for _ in 0..<300 {
            let length = Int.random(in: 0...1500, using: &generator)
            var text = String.UnicodeScalarView()
            for _ in 0..<length { text.append(alphabet.randomElement(using: &generator) ?? "a") }
            try notifier.send(.status(String(text)))
            let bytes = try #require(receiver.receive())
            // #require: one counterexample is enough, and it stops the run.
            try #require(bytes.starts(with: Array("STATUS=".utf8)))
            try #require(!bytes.contains(0x0A) && !bytes.contains(0x0D) && !bytes.contains(0), "\(bytes)")
            try #require(bytes.count <= "STATUS=".utf8.count + NotifyMessage.statusLimit)
            try #require(String(validating: bytes, as: UTF8.self) != nil)
        }
    }

    /// Without NOTIFY_SOCKET (a shell, the demo) sending does nothing and says nothing.
    @Test(arguments: [[:], ["NOTIFY_SOCKET": ""], ["WATCHDOG_USEC": "30000000"]])
    func unsetSocketIsANoOp(environment: [String: String]) throws {
        let notifier = SystemdNotifier(environment: environment)
        #expect(!notifier.isEnabled)
        #expect(notifier.address == nil)
        try notifier.send(.ready, .status("x"), .watchdog, .stopping)
    }

    /// A manager that is gone is an error to log, not a crash.
    @Test func missingSocketPathIsAnError() throws {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/tmp/ftms-bridge-no-such-dir/notify"])
        #expect(notifier.isEnabled)
        #expect(throws: NotifyError.system(operation: "send a notification to", address: "/tmp/ftms-bridge-no-such-dir/notify", errno: ENOENT)) {
            try notifier.send(.ready)
        }
        do {
            try notifier.send(.ready)
        } catch {
            #expect(error.description == "cannot send a notification to /tmp/ftms-bridge-no-such-dir/notify: No such file or directory")
        }
    }

    /// The socket file is still there but nobody reads from it: connection refused.
    @Test func staleSocketFileIsAnError() throws {
        let receiver = try NotifyReceiver(.path)
        receiver.closeLeavingFile()
        let notifier = receiver.notifier()
        #expect(throws: NotifyError.system(operation: "send a notification to", address: receiver.notifySocket, errno: ECONNREFUSED)) {
            try notifier.send(.watchdog)
        }
    }

    @Test(arguments: ["relative/notify", "vsock:2:1234", "@", "x"])
    func unsupportedAddressIsAnError(value: String) throws {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": value])
        #expect(notifier.isEnabled)
        #expect(notifier.address == nil)
        #expect(throws: NotifyError.unsupportedAddress(value)) { try notifier.send(.ready) }
    }

    /// A path is at most what NIO's socket address takes (103 bytes, as every socket path
    /// here); an abstract name fills sun_path's 108 bytes, its leading NUL for the `@`.
    @Test func addressLengthLimits() throws {
        let longestPath = "/" + String(repeating: "p", count: 102)
        let longestName = "@" + String(repeating: "n", count: 107)
        #expect(try NotifySocketAddress(parsing: longestPath) == .path(longestPath))
        #expect(try NotifySocketAddress(parsing: longestName) == .abstract(String(longestName.dropFirst())))
        #expect(throws: NotifyError.addressTooLong(longestPath + "p", limit: 103)) { try NotifySocketAddress(parsing: longestPath + "p") }
        #expect(throws: NotifyError.addressTooLong(longestName + "n", limit: 108)) { try NotifySocketAddress(parsing: longestName + "n") }
    }

    /// Fault injection: a manager that never reads. Its queue fills, and from then on every
    /// send comes back at once with `receiverBusy` instead of waiting. The sends run on a
    /// Dispatch thread, awaited without holding a thread of the cooperative pool: a send that
    /// did block hangs there, and the group's timeout catches it.
    @Test func fullReceiverNeverBlocksTheSender() async throws {
        let receiver = try NotifyReceiver(.path)
        let notifier = receiver.notifier()
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<(accepted: Int, busy: Int, other: NotifyError?), Never>) in
            DispatchQueue.global().async { continuation.resume(returning: Self.sendUntilBusy(notifier)) }
        }
        #expect(result.other == nil)
        #expect(result.accepted >= 1)
        #expect(result.busy == 50)
        // What was accepted is intact, in order.
        #expect(receiver.receiveText() == "WATCHDOG=1")
    }

    /// Sends until the receiver has refused 50 times as busy; what was accepted, refused, or
    /// any other error.
    static func sendUntilBusy(_ notifier: SystemdNotifier) -> (accepted: Int, busy: Int, other: NotifyError?) {
        var accepted = 0
        var busy = 0
        for _ in 0..<10_000 where busy < 50 {
            do throws(NotifyError) {
                try notifier.send(.watchdog)
                accepted += 1
            } catch .receiverBusy {
                busy += 1
            } catch {
                return (accepted, busy, error)
            }
        }
        return (accepted, busy, nil)
    }
}

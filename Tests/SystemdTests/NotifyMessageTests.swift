import Systemd
import Testing

/// The datagram's text, without a socket: sanitising, cutting and the size limit.
@Suite("Notification messages")
struct NotifyMessageTests {
    @Test(arguments: [
        ("plain", "plain"),
        ("a\nb", "a b"),
        ("a\r\nb", "a  b"),
        ("nul\u{0}inside", "nul inside"),
        ("tab\tand\u{7F}del", "tab and del"),
        ("next\u{85}line", "next line"),
        ("unicode\u{2028}line\u{2029}para", "unicode line para"),
        ("keeps é, € and 🚲", "keeps é, € and 🚲"),
    ])
    func statusBecomesOneLine(input: String, expected: String) {
        #expect(NotifyMessage.sanitizedStatus(input) == expected)
    }

    /// A long status is cut to the limit on a character boundary and marked with an ellipsis;
    /// one exactly at the limit is left alone.
    @Test func longStatusIsCutOnACharacterBoundary() {
        let atLimit = String(repeating: "x", count: NotifyMessage.statusLimit)
        #expect(NotifyMessage.sanitizedStatus(atLimit) == atLimit)

        let twoByte = NotifyMessage.sanitizedStatus(String(repeating: "é", count: 2000))
        #expect(twoByte.utf8.count == 1023) // 510 × 2 bytes + the 3-byte ellipsis
        #expect(twoByte == String(repeating: "é", count: 510) + "…")

        let fourByte = NotifyMessage.sanitizedStatus("a" + String(repeating: "🚲", count: 400))
        #expect(fourByte.utf8.count <= NotifyMessage.statusLimit)
        #expect(fourByte == "a" + String(repeating: "🚲", count: 255) + "…")
    }

    @Test func messageAtOrOverTheDatagramLimitIsRefused() throws {
        let status = NotifyState.status(String(repeating: "s", count: 1000))
        let fits = try NotifyMessage.encode([status, status, status], monotonicMicroseconds: { 0 })
        #expect(fits.count == 3 * 1007 + 2)
        #expect(throws: NotifyError.messageTooLarge(bytes: 5 * 1007 + 4, limit: 4096)) {
            try NotifyMessage.encode(Array(repeating: status, count: 5), monotonicMicroseconds: { 0 })
        }
    }

    /// The clock is read once per message, and only when a state needs it.
    @Test func clockIsReadOnlyForReloading() throws {
        var reads = 0
        _ = try NotifyMessage.encode([.ready, .status("x"), .watchdog], monotonicMicroseconds: { reads += 1; return 1 })
        #expect(reads == 0)
        let bytes = try NotifyMessage.encode([.reloading, .status("re-reading config")], monotonicMicroseconds: { reads += 1; return 42 })
        #expect(reads == 1)
        #expect(String(decoding: bytes, as: UTF8.self) == "RELOADING=1\nMONOTONIC_USEC=42\nSTATUS=re-reading config")
    }

    /// Durations become whole microseconds: never negative, saturating at systemd's infinity.
    @Test(arguments: [
        (Duration.seconds(90), "EXTEND_TIMEOUT_USEC=90000000"),
        (.nanoseconds(1999), "EXTEND_TIMEOUT_USEC=1"),
        (.zero, "EXTEND_TIMEOUT_USEC=0"),
        (.seconds(-5), "EXTEND_TIMEOUT_USEC=0"),
        (.seconds(Int64.max), "EXTEND_TIMEOUT_USEC=18446744073709551615"),
    ])
    func extendTimeoutMicroseconds(duration: Duration, expected: String) throws {
        let bytes = try NotifyMessage.encode([.extendTimeout(duration)], monotonicMicroseconds: { 0 })
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
    }

    @Test func monotonicClockMovesForward() {
        let first = SystemdNotifier.systemMonotonicMicroseconds()
        let second = SystemdNotifier.systemMonotonicMicroseconds()
        #expect(first > 0)
        #expect(second >= first)
    }
}

import Clocks
package import Workout
import Foundation
import HostPort

/// What one answer's `Date` header says about the gateway's clock: the backend wrote it
/// between the moment the request went out and the moment its answer came in (both on
/// `CLOCK_BOOTTIME`), it has whole seconds only, and many servers format it once a second and
/// hand out that text until the next (Hummingbird, the reference backend's server, does), so
/// it may lag its own clock by up to a second: the true time minus boottime lies in
/// ``offsetBounds``, two seconds plus the round trip wide. Answers at other points of the
/// second narrow it (``WallClockJudge``). Contract §5 ranks it below a
/// synchronised or stepped system clock and above a clock that is merely not known to be wrong.
package struct BackendDateSample: Sendable, Equatable {
    /// The backend's `Date`, whole seconds.
    package var date: UTCTime
    package var sentAt: Duration
    package var receivedAt: Duration

    package init(date: UTCTime, sentAt: Duration, receivedAt: Duration) {
        self.date = date
        self.sentAt = sentAt
        self.receivedAt = receivedAt
    }

    /// The sample an answer carries, if it has a readable `Date` and was timed.
    package init?(_ reply: BackendReply) {
        guard let sentAt = reply.sentAt, let receivedAt = reply.receivedAt, receivedAt >= sentAt,
              let parsed = RetryAfter.httpDate(reply.date)
        else { return nil }
        self.init(
            date: UTCTime(millisecondsSince1970: Int64((parsed.timeIntervalSince1970 * 1000).rounded())), sentAt: sentAt, receivedAt: receivedAt)
    }

    /// True time minus `CLOCK_BOOTTIME`, milliseconds, as far as this answer tells: at some
    /// instant between `sentAt` and `receivedAt` the backend's clock read at least `date` and
    /// less than `date` plus ``dateSpan`` (the second it names, and the second a cached header
    /// may lag by), so the offset is at least `date − receivedAt` and below `date + 2 s − sentAt`.
    package var offsetBounds: ClosedRange<Int64> {
        let date = self.date.millisecondsSince1970
        return (date - Self.milliseconds(receivedAt))...(date + Self.dateSpan - 1 - Self.milliseconds(sentAt))
    }

    /// How long after the second a `Date` names the server's clock may still read: its own
    /// second, and one more for a header cached per second.
    package static let dateSpan: Int64 = 2000

    /// Whether the `Date` of the backend at `baseURL` is believed: over TLS (AsyncHTTPClient
    /// verifies the certificate, so it is the backend the gateway is bound to), or on loopback
    /// (a reference backend on the box itself, as the tests and the demo run). Plain HTTP to
    /// another host could be anyone's answer.
    package static func trusts(baseURL: String) -> Bool {
        let lowered = baseURL.lowercased()
        if lowered.hasPrefix("https://") { return true }
        guard lowered.hasPrefix("http://") else { return false }
        var authority = lowered.dropFirst("http://".count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        guard let address = try? HostPort(parsing: authority) else { return false }
        return ListenScope(host: address.host) == .loopback
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.milliseconds
    }
}

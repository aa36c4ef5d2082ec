import Workout
import Foundation

/// `Retry-After` (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date.
///
/// An HTTP-date is taken relative to the answer's own `Date` header, the backend's clock on both
/// sides: the gateway's wall clock may be years off (a box without a real-time clock starts at
/// 2000 until NTP steps it), and read against it a date meant as "in 30 s" would have become
/// "in 26 years" (and the cap). Only an answer without a readable `Date` falls back to `now`.
enum RetryAfter {
    static func parse(_ value: String?, date: String? = nil, now: UTCTime) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return seconds >= 0 ? .seconds(seconds) : nil }
        guard let target = httpDate(value) else { return nil }
        let reference = httpDate(date) ?? Date(timeIntervalSince1970: now.unixSeconds)
        return .milliseconds(max(0, Int64((target.timeIntervalSince(reference) * 1000).rounded())))
    }

    /// IMF-fixdate, the form RFC 9110 requires senders to use (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func httpDate(_ text: String?) -> Date? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}

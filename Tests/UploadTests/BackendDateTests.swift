import Clocks
import Synchronization
import Testing
@testable import Upload
import Workout

/// The backend's `Date` as a source of true time (contract §5): what one answer bounds, which
/// backends are believed, and a real backend's answers heard by the client's witness.
@Suite("Backend Date as a clock")
struct BackendDateTests {
    /// Sent at 10.000 s, received at 10.300 s of boottime, `Date` 12:00:07: the backend's clock
    /// read at least 12:00:07 somewhere in between, and less than 12:00:09 (a header cached per
    /// second lags by up to one), so true − boottime is in [12:00:07 − 10.3 s, 12:00:09 − 10.0 s).
    @Test func oneAnswerBoundsTheOffsetByASecondAndTheRoundTrip() throws {
        let reply = BackendReply(
            status: 404, date: "Sat, 28 Nov 2026 12:00:07 GMT", sentAt: .milliseconds(10_000), receivedAt: .milliseconds(10_300))
        let sample = try #require(BackendDateSample(reply))
        let date = try #require(UTCTime(iso8601: "2026-11-28T12:00:07Z")).millisecondsSince1970
        #expect(sample.date.millisecondsSince1970 == date)
        #expect(sample.offsetBounds == (date - 10_300)...(date + 1999 - 10_000))
    }

    @Test func anAnswerWithoutADateOrTimingIsNoSample() {
        #expect(BackendDateSample(BackendReply(status: 200, sentAt: .zero, receivedAt: .seconds(1))) == nil)
        #expect(BackendDateSample(BackendReply(status: 200, date: "Sat, 28 Nov 2026 12:00:07 GMT")) == nil)
        #expect(BackendDateSample(BackendReply(status: 200, date: "yesterday", sentAt: .zero, receivedAt: .seconds(1))) == nil)
    }

    /// TLS (a verified certificate) or loopback; plain HTTP to another host could be anyone.
    @Test func whichBackendsAreBelieved() {
        for url in ["https://api.example.com", "http://127.0.0.1:8080", "http://localhost:9", "http://[::1]:80/api", "HTTPS://X"] {
            #expect(BackendDateSample.trusts(baseURL: url), "\(url)")
        }
        for url in ["http://192.168.1.10:8080", "http://backend.example.com", "http://127.example.com", "ftp://127.0.0.1", "http://localhost.evil.com"] {
            #expect(!BackendDateSample.trusts(baseURL: url), "\(url)")
        }
    }

    /// The real reference backend, asked its time on loopback: the witness hears a sample whose
    /// bounds hold this host's true time minus boottime.
    @Test func aRealBackendsDateReachesTheWitness() async throws {
        let backend = try await ReferenceBackend()
        let heard = Mutex<[BackendDateSample]>([])
        let client = try BackendClient(baseURL: backend.url) { sample in heard.withLock { $0.append(sample) } }
        try await client.askTime()
        let samples = heard.withLock { $0 }
        let sample = try #require(samples.first)
        #expect(samples.count == 1)
        let truth = SystemClocks.realtime().milliseconds - SystemClocks.boottime().milliseconds
        let bounds = sample.offsetBounds
        #expect(bounds.lowerBound - 50 <= truth && truth <= bounds.upperBound + 50, "\(truth) in \(bounds)")
        let roundTrip = BackendDateSample.milliseconds(sample.receivedAt) - BackendDateSample.milliseconds(sample.sentAt)
        #expect(bounds.upperBound - bounds.lowerBound == 1999 + roundTrip, "two seconds and the round trip wide")
    }

    /// A backend that is not believed: the witness is not told.
    @Test func anUnbelievedBackendIsNotHeard() async throws {
        let heard = Mutex(0)
        let client = try BackendClient(baseURL: "http://192.0.2.1:9", timeout: .milliseconds(1)) { _ in heard.withLock { $0 += 1 } }
        #expect(client.dateWitness == nil)
    }
}

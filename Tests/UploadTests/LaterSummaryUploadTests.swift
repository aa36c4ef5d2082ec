import Foundation
import Store
import Testing
import Upload
import Workout

/// Seed 002 §7.3 through the gateway's upload: the backend answers a summary that replaces
/// the one it held as stored, and the gateway treats that as it treats any stored session.
@Suite("A later summary of a session the backend holds")
struct LaterSummaryUploadTests {
    /// The backend holds the first half of a ride (another gateway's summary of the same
    /// session); this gateway's whole one replaces it, is marked uploaded, and the stats agree
    /// without a PATCH, because the backend counts the session once, with the later figures.
    @Test func replacesTheHeldHalfAndCountsAsUploaded() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        let whole = TestSessions.summary(1)
        var half = TestSessions.object(whole)
        half["ended_at"] = whole.startedAt.adding(seconds: 300).iso8601
        half["duration"] = 270
        half["total_distance"] = 2_000
        half["total_energy"] = 30
        try await backend.admin("POST", "/_admin/users/\(gateway.user)/sessions", ["sessions": [half]])
        try await gateway.store.enqueue([whole])
        let report = try await gateway.service.uploader.run()
        #expect(report.batches.map(\.accepted) == [1] && report.batches.map(\.duplicates) == [0])
        #expect(report.succeeded)
        #expect(try await gateway.store.counts() == QueueCounts(uploaded: 1))
        #expect(report.stats == .agreed(WorkoutStats(summaries: [whole], timeZone: TimeZone(identifier: "UTC") ?? .gmt)))
        #expect(try await backend.storedSessions().map(\.received) == [2])
        #expect(try await backend.counters()["sessions_replaced"] as? Int == 1)
    }
}

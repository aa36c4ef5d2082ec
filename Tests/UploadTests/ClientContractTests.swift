import Clocks
import TestSupport
import Foundation
import Store
import Testing
@testable import Upload
import Workout

/// The client's reading of the contract, against scripted answers: what a backend may send
/// (lenient numbers, both error shapes) and what it must not (answers that do not account
/// for every session).
@Suite("Client contract")
struct ClientContractTests {
    static let stats = #"{"workout_total_count":2,"workout_total_energy":180.0,"workout_total_distance":10010,"workout_total_duration":1260,"workout_streak":1,"last_workout_date":null}"#

    /// A logged-in gateway whose backend is `transport`, in a state directory it removes.
    final class ScriptedGateway: @unchecked Sendable {
        let directory: TemporaryDirectory
        let service: SyncService

        init(_ transport: ScriptedTransport) async throws {
            directory = try TemporaryDirectory(prefix: "ftms-contract")
            let store = try GatewayStore(directory: directory.path)
            let now = WallClock.system.now()
            try await store.saveTokens(StoredTokens(
                accessToken: "access-secret", refreshToken: "refresh-secret", issuedAt: now, expiresAt: now.adding(seconds: 3600)))
            service = SyncService(store: store, client: BackendClient(transport: transport), timeZone: TimeZone(identifier: "UTC") ?? .gmt)
        }
    }

    /// An answer whose counts do not add up to the batch is a failed call: nothing is marked
    /// uploaded on its word.
    @Test(arguments: [
        #"{"success_count":1,"duplicate_count":0,"failed_sessions":[]}"#,
        #"{"success_count":1,"duplicate_count":0,"failed_sessions":[{"session_id":null,"error":"validation_error"}]}"#,
        #"{"duplicate_count":2}"#,
        "not json",
    ])
    func anAnswerThatDoesNotAccountForEverySessionIsAFailedCall(body: String) async throws {
        let transport = ScriptedTransport { _ in ScriptedTransport.json(200, body) }
        let gateway = try await ScriptedGateway(transport)
        let service = gateway.service
        try await service.store.enqueue([TestSessions.summary(1), TestSessions.summary(2)])
        let report = try await service.uploader.run()
        #expect(report.batches.first?.failure?.hasPrefix("unexpected answer: ") == true, "\(report.batches)")
        #expect(try await service.store.counts() == QueueCounts(pending: 2))
    }

    /// Whole numbers may come as `180.0`, a date as `null`; the stats are read all the same.
    @Test func statsAreReadLeniently() async throws {
        let transport = ScriptedTransport { _ in ScriptedTransport.json(200, #"{"success_count":2,"duplicate_count":0,"failed_sessions":[],"updated_stats":\#(Self.stats)}"#) }
        let gateway = try await ScriptedGateway(transport)
        let service = gateway.service
        try await service.store.enqueue([TestSessions.summary(1), TestSessions.summary(2)])
        let report = try await service.uploader.run()
        guard case .patched(_, let server) = report.stats else {
            Issue.record("\(report.stats)")
            return
        }
        #expect(server == WorkoutStats(totalCount: 2, totalEnergy: 180, totalDistance: 10_010, totalDuration: 1_260, streak: 1, lastWorkoutDate: nil))
        #expect(transport.requests.map(\.description) == ["POST /sessions/batch_upload", "PATCH /users/me/stats"])
    }

    /// `token_expired` in either error shape means refresh and retry; tokens never travel in
    /// a path, and a request's description shows neither token nor body.
    @Test(arguments: [#"{"error":"token_expired","message":"expired"}"#, #"{"error":{"code":"token_expired"}}"#])
    func tokenExpiredInEitherShapeRefreshesOnce(errorBody: String) async throws {
        let transport = ScriptedTransport { request in
            switch (request.path, request.bearer) {
            case ("/auth/refresh", "refresh-secret"):
                return ScriptedTransport.json(200, #"{"access_token":"access-2","refresh_token":"refresh-2","expires_in":1800}"#)
            case ("/users/me/stats", "access-2"):
                return ScriptedTransport.json(200, Self.stats)
            default:
                return ScriptedTransport.json(401, errorBody)
            }
        }
        let gateway = try await ScriptedGateway(transport)
        let service = gateway.service
        let stats = try await service.authority.authorized { [client = service.client] in try await client.stats(accessToken: $0) }
        #expect(stats.totalCount == 2)
        #expect(transport.requests.map(\.path) == ["/users/me/stats", "/auth/refresh", "/users/me/stats"])
        #expect(try await service.store.tokens()?.refreshToken == "refresh-2")
        for request in transport.requests {
            #expect(!request.path.contains("secret") && !request.description.contains("secret"))
        }
    }

    /// Any other 401 on a normal call means the login was revoked: tokens go, data stays.
    @Test func invalidTokenOnACallDropsTheTokens() async throws {
        let transport = ScriptedTransport { _ in ScriptedTransport.json(401, #"{"error":"invalid_token"}"#) }
        let gateway = try await ScriptedGateway(transport)
        let service = gateway.service
        try await service.store.enqueue(TestSessions.summary(1))
        let report = try await service.uploader.run()
        #expect(report.outcome == .blocked)
        #expect(try await service.store.tokens() == nil)
        #expect(try await service.store.accountState().loginRequiredReason == "the backend refused the access token (invalid_token)")
        #expect(try await service.store.counts() == QueueCounts(pending: 1))
        #expect(transport.requests.count == 1, "no refresh is spent on a revoked login")
    }

    @Test func retryAfterInBothForms() {
        let now = UTCTime(secondsSince1970: 1_767_596_400)  // 2026-01-05T07:00:00Z
        #expect(RetryAfter.parse("7", now: now) == .seconds(7))
        #expect(RetryAfter.parse("Mon, 05 Jan 2026 07:01:30 GMT", now: now) == .seconds(90))
        #expect(RetryAfter.parse("Mon, 05 Jan 2026 06:00:00 GMT", now: now) == .zero)
        #expect(RetryAfter.parse("-3", now: now) == nil)
        #expect(RetryAfter.parse("soon", now: now) == nil)
    }

    /// 429's `Retry-After` reaches the report.
    @Test func rateLimitCarriesRetryAfter() async throws {
        let transport = ScriptedTransport { _ in ScriptedTransport.json(429, #"{"error":"rate_limited"}"#, retryAfter: "12") }
        let gateway = try await ScriptedGateway(transport)
        let service = gateway.service
        try await service.store.enqueue(TestSessions.summary(1))
        let report = try await service.uploader.run()
        #expect(report.outcome == .retry(retryAfter: .seconds(12)))
    }

    /// A backend that does not answer at all: the run stops after three such calls, so a
    /// long queue does not cost a timeout per batch; the scheduler backs off and retries.
    @Test func threeUnansweredCallsEndTheRun() async throws {
        let transport = ScriptedTransport { _ in throw BackendError.unreachable("connection refused") }
        let gateway = try await ScriptedGateway(transport)
        let service = gateway.service
        try await service.store.enqueue((0..<100).map { TestSessions.summary($0) })
        let report = try await service.uploader.run()
        #expect(report.batches.count == 3)
        #expect(report.stoppedBy == .unreachable("connection refused"))
        #expect(report.outcome == .retry(retryAfter: nil))
        #expect(try await service.store.counts() == QueueCounts(pending: 100))
    }

    /// Answered failures (5xx) do not end the run: the next batch is tried (SolidFocus).
    @Test func answeredFailuresGoOnWithTheNextBatch() async throws {
        let transport = ScriptedTransport { _ in ScriptedTransport.json(503, #"{"error":"server_error"}"#) }
        let gateway = try await ScriptedGateway(transport)
        try await gateway.service.store.enqueue((0..<100).map { TestSessions.summary($0) })
        let report = try await gateway.service.uploader.run()
        #expect(report.batches.count == 5)
        #expect(report.stoppedBy == nil)
    }

    /// SolidFocus's error table: a session refused as `duplicate_session` is already on the
    /// backend, so it is uploaded, not retried.
    @Test func aDuplicateReportedAsAFailureIsUploaded() async throws {
        let first = TestSessions.summary(1)
        let transport = ScriptedTransport { _ in
            ScriptedTransport.json(200, #"{"success_count":1,"duplicate_count":0,"failed_sessions":[{"session_id":"\#(first.sessionID.uppercased())","error":"duplicate_session"}]}"#)
        }
        let gateway = try await ScriptedGateway(transport)
        try await gateway.service.store.enqueue([first, TestSessions.summary(2)])
        let report = try await gateway.service.uploader.run()
        #expect(report.batches.first?.duplicates == 1)
        #expect(report.batches.first?.accepted == 1)
        #expect(try await gateway.service.store.counts() == QueueCounts(uploaded: 2))
    }
}

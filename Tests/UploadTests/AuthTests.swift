import Foundation
import Store
import Testing
import Upload
import Workout

/// Login, device binding, token refresh and logout (SolidFocus Flows 2, 6 and 8) against the
/// reference backend as a real process.
@Suite("Account and tokens")
struct AuthTests {
    /// Flow 2: the backend's sessions are merged by id (downloaded ones are `uploaded`, a
    /// local pending one the backend holds becomes `uploaded`) and its stats adopted.
    @Test func loginMergesSessionsAndAdoptsStats() async throws {
        let backend = try await ReferenceBackend()
        let gateway = try TestGateway(backend: backend)
        let local = try await gateway.enqueue(2)
        let remote = [local[1], TestSessions.summary(10), TestSessions.summary(11)]
        try await backend.admin("POST", "/_admin/users/\(gateway.user)/sessions", ["sessions": remote.map(TestSessions.object)])
        let result = try await gateway.login()
        #expect(result.sessionsAdded == 2)
        #expect(result.sessionsAlreadyHeld == 1)
        #expect(result.sessionsError == nil)
        let utc = TimeZone(identifier: "UTC") ?? .gmt
        #expect(result.stats == WorkoutStats(summaries: remote, timeZone: utc))
        #expect(try await gateway.store.storedStats()?.source == .server)
        #expect(try await gateway.store.counts() == QueueCounts(pending: 1, uploaded: 3))
        let downloaded = try await gateway.store.sessions().filter(\.downloaded).map(\.sessionID)
        #expect(Set(downloaded) == Set(remote.suffix(2).map(\.sessionID)))
        #expect(try await gateway.store.localStats(timeZone: utc) == WorkoutStats(summaries: remote, timeZone: utc))
    }

    /// The binding table's second row: the same gateway logging in again is allowed, and
    /// nothing local is lost.
    @Test func theSameGatewayLogsInAgain() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        try await gateway.enqueue(2)
        let again = try await gateway.login()
        #expect(again.sessionsError == nil)
        #expect(try await gateway.store.counts() == QueueCounts(pending: 2))
        #expect(((try await backend.counters()["logins"] as? [String: Any])?[gateway.store.deviceID] as? Int) == 2)
    }

    /// SolidFocus's error table: a failed `GET /sessions` or stats download leaves the login
    /// standing and the local data in use.
    @Test func aFailedDownloadLeavesTheLoginStanding() async throws {
        let backend = try await ReferenceBackend()
        let gateway = try TestGateway(backend: backend)
        try await gateway.enqueue(1)
        try await backend.faults(["5xx:route=sessions+stats"])
        let result = try await gateway.login()
        #expect(result.sessionsError == "HTTP 503 server_error")
        #expect(result.statsError == "HTTP 503 server_error")
        #expect(try await gateway.store.accountState().loggedIn)
        #expect(try await gateway.store.counts() == QueueCounts(pending: 1))
        #expect(try await gateway.service.uploader.run().succeeded)
    }

    /// `403 device_already_bound` and `401 invalid_token` are distinct, clear errors, and
    /// neither leaves tokens behind.
    @Test func bindingRefusalAndBadIDTokenAreDistinct() async throws {
        let backend = try await ReferenceBackend()
        let first = try TestGateway(backend: backend)
        try await first.login()
        let second = try TestGateway(backend: backend, user: first.user)
        do {
            try await second.login()
            Issue.record("a second gateway logged in to a bound account")
        } catch let error as BackendError {
            guard case .deviceAlreadyBound = error else { throw error }
            #expect(error.description.hasPrefix("device_already_bound: "))
        }
        #expect(try await second.store.tokens() == nil)
        do {
            try await second.service.login(provider: "test", idToken: "not a token")
            Issue.record("a bad id token was accepted")
        } catch let error as BackendError {
            guard case .invalidIDToken = error else { throw error }
            #expect(error.description.hasPrefix("invalid_token: "))
        }
        #expect(try await second.store.tokens() == nil)
        // Once the first gateway logs out, the account is free for the second.
        try await first.service.logout(.refuseIfPending)
        try await second.login()
        #expect(try await second.store.accountState().loggedIn)
    }

    /// The device id outlives the store (issue 36): a zeroed database opens fresh with the same
    /// device id, so the backend's binding accepts the login again, and the rides the zeroed
    /// file held come back from the session journal and go up once.
    @Test func aZeroedStoreKeepsTheBindingAndItsRides() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        let rides = try await gateway.enqueue(2)
        let state = gateway.directory.file("state")
        try gateway.store.close()
        let database = state + "/" + GatewayStore.fileName
        let size = try #require(try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int)
        try Data(count: size).write(to: URL(fileURLWithPath: database))

        let (store, moved) = try GatewayStore.openMovingDamagedAside(directory: state)
        #expect(moved?.keptDeviceID == true && moved?.keptLogin == false)
        #expect(store.deviceID == gateway.store.deviceID)
        let service = SyncService(store: store, client: try BackendClient(baseURL: backend.url), timeZone: TimeZone(identifier: "UTC") ?? .gmt)
        _ = try await service.login(provider: "test", idToken: gateway.idToken)
        #expect(try await store.counts() == QueueCounts(pending: 2))
        #expect(try await service.uploader.run().succeeded)
        #expect(try await store.counts() == QueueCounts(uploaded: 2))
        #expect(Set(try await store.sessions().map(\.sessionID)) == Set(rides.map(\.sessionID)))
        try store.close()
    }

    /// Flow 8: many calls refused at once with `token_expired` share one refresh.
    @Test func concurrentExpiredCallsShareOneRefresh() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        let before = try #require(try await gateway.store.tokens())
        try await backend.admin("POST", "/_admin/tokens", ["expire_access": true])
        let authority = gateway.service.authority
        let client = gateway.service.client
        let results = try await withThrowingTaskGroup(of: WorkoutStats.self) { group in
            for _ in 0..<12 {
                group.addTask { try await authority.authorized { try await client.stats(accessToken: $0) } }
            }
            var results: [WorkoutStats] = []
            for try await stats in group { results.append(stats) }
            return results
        }
        #expect(results.count == 12)
        #expect(await authority.refreshCount == 1)
        #expect(try await backend.refreshes(device: gateway.store.deviceID) == 1)
        #expect(try await backend.counters()["reuse_detected"] as? Int == 0)
        let after = try #require(try await gateway.store.tokens())
        #expect(after.refreshToken != before.refreshToken, "the rolled refresh token is stored")
        #expect(after.accessToken != before.accessToken)
    }

    /// Tokens are refreshed ahead of expiry during a long upload, so no call is refused.
    @Test func tokensRefreshAheadOfExpiry() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn(["--token-lifetime", "5"])
        try await backend.faults(["latency:ms=250,route=batch_upload"])
        try await gateway.enqueue(400)
        let report = try await gateway.service.uploader.run()
        #expect(report.succeeded)
        // 20 batches of 0.25 s outlast the 5 s token, which is renewed at 4 s.
        let refreshes = try await backend.refreshes(device: gateway.store.deviceID)
        #expect(refreshes >= 1)
        #expect(refreshes == (await gateway.service.authority.refreshCount))
        let counters = try await backend.counters()
        #expect(counters["reuse_detected"] as? Int == 0)
        let batchStatuses = ((counters["routes"] as? [String: Any])?["batch_upload"] as? [String: Any])?["statuses"] as? [String: Int]
        // Every batch lands. A starved CI machine can stretch one call past the 1 s margin, so
        // one token_expired (answered by a refresh and a retry) is tolerated; more is a bug.
        #expect(batchStatuses?["200"] == 20)
        #expect((batchStatuses?["401"] ?? 0) <= 1, "batches refused with token_expired: \(batchStatuses ?? [:])")
    }

    /// Flow 8: a refresh refused with 401 deletes the tokens and keeps every session; the
    /// gateway says "login required" and, logged in again, uploads what it kept.
    @Test func anExpiredRefreshTokenKeepsTheData() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        try await gateway.enqueue(21)
        try await backend.admin("POST", "/_admin/tokens", ["expire_access": true, "expire_refresh": true])
        let report = try await gateway.service.uploader.run()
        guard case .loginRequired(let reason)? = report.stoppedBy else {
            Issue.record("stopped by \(String(describing: report.stoppedBy))")
            return
        }
        #expect(reason.contains("token_expired"))
        #expect(report.outcome == .blocked)
        #expect(report.batches.count == 1, "no further batch is tried without tokens")
        #expect(try await gateway.store.tokens() == nil)
        let state = try await gateway.store.accountState()
        #expect(!state.loggedIn)
        #expect(state.loginRequiredReason == reason)
        #expect(try await gateway.store.counts() == QueueCounts(pending: 21))
        try await gateway.enqueue(1, from: 30)  // still recording
        try await gateway.login()
        #expect(try await gateway.service.uploader.run().succeeded)
        #expect(try await gateway.store.counts() == QueueCounts(uploaded: 22))
    }

    /// A refresh token rotated away (here by a stray second client) is refused as reuse: the
    /// backend revokes the login, and the gateway needs a login, data kept.
    @Test func aReusedRefreshTokenEndsTheLogin() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        try await gateway.enqueue(1)
        let tokens = try #require(try await gateway.store.tokens())
        _ = try await gateway.service.client.refresh(refreshToken: tokens.refreshToken, deviceID: gateway.store.deviceID)
        try await backend.admin("POST", "/_admin/tokens", ["expire_access": true])
        let report = try await gateway.service.uploader.run()
        guard case .loginRequired? = report.stoppedBy else {
            Issue.record("stopped by \(String(describing: report.stoppedBy))")
            return
        }
        #expect(try await gateway.store.accountState().loginRequiredReason?.contains("invalid_token") == true)
        #expect(try await gateway.store.counts() == QueueCounts(pending: 1))
    }

    /// Flow 6: logout refuses while sessions are pending, uploads first when told, and then
    /// wipes everything but the device id.
    @Test func logoutWithPendingSessions() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        let summaries = try await gateway.enqueue(21)
        let device = gateway.store.deviceID
        do {
            try await gateway.service.logout(.refuseIfPending)
            Issue.record("logout went ahead with 21 pending")
        } catch let refusal as LogoutRefusal {
            #expect(refusal.description.hasPrefix("21 sessions are not uploaded yet"))
        }
        #expect(try await gateway.store.accountState().loggedIn)
        #expect(try await gateway.store.counts() == QueueCounts(pending: 21))

        try await backend.faults(["5xx:route=batch_upload,next=1"])
        do {
            try await gateway.service.logout(.uploadFirst)
            Issue.record("logout went ahead with sessions still pending")
        } catch LogoutRefusal.stillPending(let count, _) {
            #expect(count == 20)
        }
        #expect(try await gateway.store.accountState().loggedIn)

        let result = try await gateway.service.logout(.uploadFirst)
        #expect(result.upload?.succeeded == true)
        #expect(result.serverCallError == nil)
        #expect(try await backend.storedSessions().map(\.id).sorted() == summaries.map(\.sessionID).sorted())
        #expect(try await gateway.store.counts() == QueueCounts())
        #expect(try await gateway.store.tokens() == nil)
        #expect(try await gateway.store.storedStats() == nil)
        #expect(try GatewayStore(directory: gateway.directory.file("state")).deviceID == device)
        // The binding was released: the same account logs in from another gateway.
        try await TestGateway(backend: backend, user: gateway.user).login()
    }

    /// Forced logout discards pending sessions and wipes even when the backend is gone.
    @Test func forcedLogoutWithoutTheBackend() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        try await gateway.enqueue(3)
        try await backend.faults(["5xx:route=logout"])
        let result = try await gateway.service.logout(.force)
        #expect(result.discarded == 3)
        #expect(result.serverCallError == "HTTP 503 server_error")
        #expect(try await gateway.store.counts() == QueueCounts())
        #expect(try await gateway.store.tokens() == nil)
    }

    /// `GET /trainings` is cached with a TTL; a failed refresh keeps the stale cache.
    @Test func trainingsAreCachedWithStaleFallback() async throws {
        let (backend, gateway) = try await TestGateway.loggedIn()
        let first = try await gateway.service.trainings(ttl: 3600)
        #expect(first.refreshed)
        let body = try #require(first.cache?.body)
        let courses = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [[String: Any]])
        #expect(courses.count == 3)
        let cached = try await gateway.service.trainings(ttl: 3600)
        #expect(!cached.refreshed)
        #expect(cached.cache == first.cache)
        try await backend.faults(["5xx:route=trainings"])
        let stale = try await gateway.service.trainings(ttl: 3600, force: true)
        #expect(!stale.refreshed)
        #expect(stale.error == "HTTP 503 server_error")
        #expect(stale.cache == first.cache)
        let calls = ((try await backend.counters()["routes"] as? [String: Any])?["trainings"] as? [String: Any])?["calls"] as? Int
        #expect(calls == 2)
    }
}

import TestSupport
import Testing
import Workout
@testable import Store

/// Tokens, the device id and logout's wipe (SolidFocus Flows 2, 6 and 8).
@Suite("Account state")
struct AccountTests {
    static let tokens = StoredTokens(
        accessToken: "access-1", refreshToken: "refresh-1", issuedAt: Sessions.origin, expiresAt: Sessions.origin.adding(seconds: 1800))

    @Test func deviceIDIsMadeOnceAndKeptForever() async throws {
        let directory = try TemporaryDirectory()
        let first = try GatewayStore(directory: directory.path).deviceID
        #expect(first.count == 36)
        #expect(first == first.lowercased())
        let store = try GatewayStore(directory: directory.path)
        #expect(store.deviceID == first)
        try await store.saveTokens(Self.tokens)
        try await store.wipeAccount()
        #expect(try GatewayStore(directory: directory.path).deviceID == first)
        let elsewhere = try TemporaryDirectory()
        #expect(try GatewayStore(directory: elsewhere.path).deviceID != first)
    }

    @Test func tokensRollAndKeepTheProfile() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        #expect(try await store.tokens() == nil)
        #expect(try await store.accountState().loggedIn == false)
        try await store.saveTokens(Self.tokens, userProfile: #"{"name":"Rider"}"#)
        #expect(try await store.tokens() == Self.tokens)
        var rolled = Self.tokens
        rolled.accessToken = "access-2"
        rolled.refreshToken = "refresh-2"
        try await store.saveTokens(rolled)
        #expect(try await store.tokens() == rolled)
        let state = try await store.accountState()
        #expect(state.loggedIn)
        #expect(state.userProfile == #"{"name":"Rider"}"#)
        #expect(state.loginRequiredReason == nil)
        #expect(!Self.tokens.description.contains("access-1"))
        #expect(!Self.tokens.description.contains("refresh-1"))
    }

    /// SolidFocus Flow 8: a refresh rejected with 401 deletes the tokens and keeps everything else.
    @Test func droppingTokensKeepsData() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        try await store.saveTokens(Self.tokens)
        try await store.enqueue(Sessions.summary(1, offset: 0))
        try await store.cacheTrainings(body: "[]")
        try await store.dropTokens(reason: "refresh token rejected (invalid_token)")
        #expect(try await store.tokens() == nil)
        let state = try await store.accountState()
        #expect(!state.loggedIn)
        #expect(state.loginRequiredReason == "refresh token rejected (invalid_token)")
        #expect(try await store.counts().pending == 1)
        #expect(try await store.cachedTrainings()?.body == "[]")
        try await store.saveTokens(Self.tokens)
        #expect(try await store.accountState().loginRequiredReason == nil)
    }

    /// SolidFocus Flow 6 step 3: everything but `device_id` goes, pending sessions included.
    @Test func logoutWipesAllButTheDeviceID() async throws {
        let directory = try TemporaryDirectory()
        let store = try GatewayStore(directory: directory.path)
        try await store.saveTokens(Self.tokens, userProfile: "{}")
        try await store.enqueue(Sessions.summary(1, offset: 0))
        try await store.saveStats(WorkoutStats(summaries: [Sessions.summary(1, offset: 0)], timeZone: .gmt), source: .server)
        try await store.cacheTrainings(body: "[]")
        try await store.logUpload(result: "1 uploaded", succeeded: true)
        try await store.wipeAccount()
        #expect(try await store.tokens() == nil)
        #expect(try await store.accountState() == AccountState(loggedIn: false, loginRequiredReason: nil, userProfile: nil, accessExpiresAt: nil))
        #expect(try await store.counts() == QueueCounts())
        #expect(try await store.storedStats() == nil)
        #expect(try await store.cachedTrainings() == nil)
        #expect(try await store.lastUpload() == nil)
    }

    @Test func trainingsCacheAges() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock.atOrigin()
        let store = try GatewayStore(directory: directory.path, clock: clock.wall)
        try await store.cacheTrainings(body: #"[{"id":"t1"}]"#)
        let cache = try #require(try await store.cachedTrainings())
        #expect(cache.cacheTimestamp == Sessions.origin)
        #expect(cache.isFresh(ttl: 3600, at: Sessions.origin.adding(seconds: 3599)))
        #expect(!cache.isFresh(ttl: 3600, at: Sessions.origin.adding(seconds: 3600)))
        #expect(!cache.isFresh(ttl: 3600, at: Sessions.origin.adding(seconds: -1)), "a clock set back does not make a cache fresh")
    }
}

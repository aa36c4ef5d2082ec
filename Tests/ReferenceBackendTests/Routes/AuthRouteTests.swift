import JSON
import Hummingbird
import Testing
@testable import ReferenceBackend

@Suite("Auth routes: login, binding, rolling refresh, logout")
struct AuthRouteTests {
    @Test("login answers tokens, expires_in and the profile; the access token opens protected routes")
    func login() async throws {
        try await withBackend { api, _ in
            let body: JSONValue = [
                "id_token": "test:alice", "device_id": "device-1", "user_info": ["name": ["firstName": "Alice", "lastName": "Liddell"], "email": "a@example.com"],
            ]
            let response = try await api.call(.post, "/auth/sso/apple", body: body)
            #expect(response.status == 200)
            #expect(response["expires_in"] == 1800)
            #expect(response["user_profile"]?["user_id"] == "alice")
            #expect(response["user_profile"]?["name"] == "Alice Liddell")
            #expect(response["user_profile"]?["email"] == "a@example.com")
            #expect(response["user_profile"]?["bound_device_id"] == "device-1")
            #expect(response["user_profile"]?["created_at"] == "2025-12-24T08:00:00Z")
            let access = try #require(response["access_token"]?.string)
            #expect(try await api.call(.get, "/users/me/stats", bearer: access).status == 200)
            #expect(try await api.call(.get, "/users/me", bearer: access)["user_profile"]?["provider"] == "apple")
        }
    }

    @Test("an unsigned JWT id token: sub, email and name are read; an expired one is refused")
    func jwtIDToken() async throws {
        try await withBackend { api, clock in
            func token(_ payload: JSONValue) throws -> String {
                Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(try JSONCoding.data(payload)) + "."
            }
            let fresh = try token(["sub": "bob", "email": "bob@example.com", "name": "Bob", "exp": .integer(clock.wall.now().secondsSince1970 + 60)])
            let response = try await api.call(.post, "/auth/sso/google", body: ["id_token": .string(fresh), "device_id": "device-2"])
            #expect(response.status == 200)
            #expect(response["user_profile"]?["email"] == "bob@example.com")
            let stale = try token(["sub": "carol", "exp": .integer(clock.wall.now().secondsSince1970 - 1)])
            let refused = try await api.call(.post, "/auth/sso/apple", body: ["id_token": .string(stale), "device_id": "device-3"])
            #expect(refused.status == 401 && refused.error == "invalid_token")
            #expect(refused["message"] == "id token has expired")
        }
    }

    static let badLoginCases: [(String, JSONValue, Int, String)] = [
        ("/auth/sso/apple", ["id_token": "garbage", "device_id": "d"], 401, "invalid_token"),
        ("/auth/sso/apple", ["id_token": "test:", "device_id": "d"], 401, "invalid_token"),
        ("/auth/sso/apple", ["id_token": "test:x"], 400, "invalid_request"),
        ("/auth/sso/apple", ["device_id": "d"], 400, "invalid_request"),
        ("/auth/sso/apple", ["id_token": "test:x", "device_id": "d", "user_info": "Alice"], 400, "invalid_request"),
        ("/auth/sso/facebook", ["id_token": "test:x", "device_id": "d"], 400, "unsupported_provider"),
    ]

    @Test("bad logins are refused with the right code", arguments: badLoginCases)
    func badLogins(path: String, body: JSONValue, status: Int, code: String) async throws {
        try await withBackend { api, _ in
            let response = try await api.call(.post, path, body: body)
            #expect(response.status == status && response.error == code)
        }
    }

    @Test("the device binding table (contract §6), row by row")
    func bindingTable() async throws {
        try await withBackend { api, _ in
            // First login: binds.
            let first = try await api.login("alice", device: "device-A")
            // Same device again: allowed, a second login.
            _ = try await api.login("alice", device: "device-A")
            // New device while bound: refused.
            let other = try await api.call(.post, "/auth/sso/apple", body: ["id_token": "test:alice", "device_id": "device-B"])
            #expect(other.status == 403 && other.error == "device_already_bound")
            // Another account on a bound device: refused.
            let stranger = try await api.call(.post, "/auth/sso/apple", body: ["id_token": "test:bob", "device_id": "device-A"])
            #expect(stranger.status == 403 && stranger.error == "device_already_bound")
            // Logout releases the binding; the new device may log in, and the old tokens are dead.
            let logout = try await api.call(.post, "/auth/logout", bearer: first.access, body: ["device_id": "device-A", "refresh_token": .string(first.refresh)])
            #expect(logout.status == 200 && logout["logged_out"] == true)
            #expect(try await api.call(.get, "/sessions", bearer: first.access).error == "invalid_token")
            #expect(try await api.refresh(first.refresh, device: "device-A").error == "invalid_token")
            _ = try await api.login("alice", device: "device-B")
            _ = try await api.login("bob", device: "device-A")
        }
    }

    @Test("refresh rotates: a new pair each time, the old refresh token is spent")
    func rollingRefresh() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            let first = try await api.refresh(login.refresh)
            #expect(first.status == 200 && first["expires_in"] == 1800)
            let refresh1 = try #require(first["refresh_token"]?.string)
            let access1 = try #require(first["access_token"]?.string)
            #expect(refresh1 != login.refresh && access1 != login.access)
            let second = try await api.refresh(refresh1)
            #expect(second.status == 200)
            #expect(try await api.call(.get, "/trainings", bearer: second["access_token"]?.string)["trainings"] != nil)
            let counters = try await api.call(.get, "/_admin/counters")
            #expect(counters["refreshes"]?["device-1"] == 2)
            #expect(counters["reuse_detected"] == 0)
        }
    }

    @Test("reusing a rotated refresh token revokes the whole login, access tokens included")
    func reuseRevokesLogin() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            let rotated = try await api.refresh(login.refresh)
            let access = try #require(rotated["access_token"]?.string)
            let current = try #require(rotated["refresh_token"]?.string)
            let reuse = try await api.refresh(login.refresh)
            #expect(reuse.status == 401 && reuse.error == "invalid_token")
            #expect(reuse["message"] == "the refresh token was already used; this login is revoked")
            #expect(try await api.refresh(current).error == "invalid_token")
            #expect(try await api.call(.get, "/sessions", bearer: access).error == "invalid_token")
            let counters = try await api.call(.get, "/_admin/counters")
            #expect(counters["reuse_detected"] == 1)
            #expect(counters["refresh_failures"]?["device-1"] == 2)
            // The binding stays: the same device logs in again.
            _ = try await api.login("alice")
        }
    }

    @Test("two refreshes racing with one token: exactly one wins, and the race ends the login")
    func racingRefreshes() async throws {
        try await withBackend(setup: .live) { api, _ in
            let port = try #require(api.port)
            let login = try await api.login("alice")
            async let first = API.connect(port: port) { try await $0.refresh(login.refresh) }
            async let second = API.connect(port: port) { try await $0.refresh(login.refresh) }
            let answers = try await [first, second]
            #expect(answers.map(\.status).sorted() == [200, 401])
            let winner = try #require(answers.first { $0.status == 200 })
            #expect(try await api.refresh(try #require(winner["refresh_token"]?.string)).error == "invalid_token")
            let counters = try await api.call(.get, "/_admin/counters")
            #expect(counters["refreshes"]?["device-1"] == 1 && counters["reuse_detected"] == 1)
        }
    }

    @Test("with a grace window, the just-replaced token works once more within it, not after")
    func graceWindow() async throws {
        try await withBackend({ $0.refreshGrace = 10 }) { api, clock in
            let login = try await api.login("alice")
            let rotated = try await api.refresh(login.refresh)
            let lost = try #require(rotated["refresh_token"]?.string)
            clock.advance(.seconds(5))
            let again = try await api.refresh(login.refresh)
            #expect(again.status == 200)
            // The pair issued in between is now dead, and using it is reuse.
            #expect(try await api.refresh(lost).error == "invalid_token")
            let login2 = try await api.login("alice")
            _ = try await api.refresh(login2.refresh)
            clock.advance(.seconds(11))
            #expect(try await api.refresh(login2.refresh).error == "invalid_token")
        }
    }

    @Test("access expiry gives token_expired; refresh expiry gives token_expired on refresh")
    func expiry() async throws {
        try await withBackend({ $0.accessTokenLifetime = 60; $0.refreshTokenLifetime = 600 }) { api, clock in
            let login = try await api.login("alice")
            clock.advance(.seconds(59))
            #expect(try await api.call(.get, "/sessions", bearer: login.access).status == 200)
            clock.advance(.seconds(2))
            let expired = try await api.call(.get, "/sessions", bearer: login.access)
            #expect(expired.status == 401 && expired.error == "token_expired")
            let refreshed = try await api.refresh(login.refresh)
            #expect(refreshed.status == 200)
            clock.advance(.seconds(601))
            let late = try await api.refresh(try #require(refreshed["refresh_token"]?.string))
            #expect(late.status == 401 && late.error == "token_expired")
        }
    }

    @Test("refresh refusals: no token, access token, wrong device, no device_id, garbage")
    func refreshRefusals() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            #expect(try await api.call(.post, "/auth/refresh", body: ["device_id": "device-1"]).error == "invalid_token")
            #expect(try await api.refresh(login.access).error == "invalid_token")
            #expect(try await api.refresh(login.refresh, device: "device-2").error == "invalid_token")
            let missing = try await api.call(.post, "/auth/refresh", bearer: login.refresh, body: [:])
            #expect(missing.status == 400 && missing.error == "invalid_request")
            #expect(try await api.refresh("eyJ.garbage.x").error == "invalid_token")
            // None of these spent the token.
            #expect(try await api.refresh(login.refresh).status == 200)
        }
    }

    @Test("protected routes: no token, a refresh token, a lower-case scheme")
    func protectedRoutes() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            for path in ["/sessions", "/users/me", "/users/me/stats", "/trainings"] {
                let response = try await api.call(.get, path)
                #expect(response.status == 401 && response.error == "invalid_token", "\(path)")
                #expect(try await api.call(.get, path, bearer: login.refresh).error == "invalid_token", "\(path)")
            }
            let (lower, _) = try await api.transport("/sessions", .get, [.authorization: "bearer \(login.access)"], nil)
            #expect(lower.status == .ok)
        }
    }

    @Test("logout accepts an expired access token, refuses another device's, and is idempotent")
    func logout() async throws {
        try await withBackend({ $0.accessTokenLifetime = 60 }) { api, clock in
            let login = try await api.login("alice")
            let mismatch = try await api.call(.post, "/auth/logout", bearer: login.access, body: ["device_id": "device-9"])
            #expect(mismatch.status == 403 && mismatch.error == "device_mismatch")
            #expect(try await api.call(.post, "/auth/logout", body: ["device_id": "device-1"]).error == "invalid_token")
            clock.advance(.seconds(120))
            #expect(try await api.call(.post, "/auth/logout", bearer: login.access, body: ["device_id": "device-1"]).status == 200)
            #expect(try await api.call(.post, "/auth/logout", bearer: login.access, body: ["device_id": "device-1"]).status == 200)
            let users = try await api.call(.get, "/_admin/users")
            #expect(users["users"] == [["profile": ["user_id": "alice", "provider": "apple", "created_at": "2025-12-24T08:00:00Z"], "sessions": 0,
                "stats": ["workout_total_count": 0, "workout_total_energy": 0, "workout_total_distance": 0, "workout_total_duration": 0, "workout_streak": 0, "last_workout_date": .null],
                "stats_patched": false, "active_logins": 0]])
        }
    }
}

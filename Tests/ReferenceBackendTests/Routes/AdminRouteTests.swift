import JSON
import Testing
@testable import ReferenceBackend

@Suite("Admin API: token levers, injection, unbinding, courses, reset, counters")
struct AdminRouteTests {
    @Test("expire_access: every access token issued so far says token_expired; a refresh cures it")
    func expireAccess() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            let settings = try await api.call(.post, "/_admin/tokens", body: ["expire_access": true])
            #expect(settings.json == ["access_lifetime": 1800, "refresh_lifetime": 5_184_000, "refresh_grace": 0])
            let expired = try await api.call(.get, "/sessions", bearer: login.access)
            #expect(expired.status == 401 && expired.error == "token_expired")
            let refreshed = try await api.refresh(login.refresh)
            #expect(try await api.call(.get, "/sessions", bearer: refreshed["access_token"]?.string).status == 200)
        }
    }

    @Test("expire_refresh: the refresh token says token_expired, and the user's data stays")
    func expireRefresh() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            _ = try await api.upload([Sessions.make(1)], token: login.access)
            _ = try await api.call(.post, "/_admin/tokens", body: ["expire_refresh": true])
            let refused = try await api.refresh(login.refresh)
            #expect(refused.status == 401 && refused.error == "token_expired")
            let again = try await api.login("alice")
            #expect(try await api.call(.get, "/sessions", bearer: again.access)["sessions"]?.arrayCount == 1)
        }
    }

    @Test("short lifetimes apply to tokens issued from then on; bad values are refused")
    func lifetimes() async throws {
        try await withBackend { api, clock in
            _ = try await api.call(.post, "/_admin/tokens", body: ["access_lifetime": 2, "refresh_lifetime": 5])
            let login = try await api.login("alice")
            #expect(login.response["expires_in"] == 2)
            clock.advance(.seconds(2))
            #expect(try await api.call(.get, "/sessions", bearer: login.access).error == "token_expired")
            clock.advance(.seconds(3))
            #expect(try await api.refresh(login.refresh).error == "token_expired")
            let bad = try await api.call(.post, "/_admin/tokens", body: ["access_lifetime": 0])
            #expect(bad.status == 400 && bad["message"] == "access_lifetime must be whole seconds ≥ 1")
            #expect(try await api.call(.post, "/_admin/tokens", body: ["lifetime": 3]).status == 400)
        }
    }

    @Test("injected sessions are the user's: downloaded, counted, and they make the stats differ")
    func inject() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            let injected = try await api.call(.post, "/_admin/users/alice/sessions", body: ["sessions": [Sessions.make(1, day: 23)]])
            #expect(injected["success_count"] == 1)
            let upload = try await api.upload([Sessions.make(2)], token: login.access)
            #expect(upload["updated_stats"]?["workout_total_count"] == 2 && upload["updated_stats"]?["workout_streak"] == 2)
            #expect(try await api.call(.get, "/sessions", bearer: login.access)["sessions"]?.arrayCount == 2)
            // A user who never logged in is created by injection.
            #expect(try await api.call(.post, "/_admin/users/zoe/sessions", body: ["sessions": [Sessions.make(3)]])["success_count"] == 1)
            let users = try await api.call(.get, "/_admin/users")
            #expect(users["users"]?.arrayCount == 2)
        }
    }

    @Test("unbinding: the binding goes, the logins are revoked, another device may log in")
    func unbind() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice", device: "device-A")
            #expect(try await api.call(.delete, "/_admin/users/alice/binding")["unbound"] == true)
            #expect(try await api.call(.get, "/sessions", bearer: login.access).error == "invalid_token")
            _ = try await api.login("alice", device: "device-B")
            let unknown = try await api.call(.delete, "/_admin/users/nobody/binding")
            #expect(unknown.status == 404 && unknown.error == "not_found")
        }
    }

    @Test("replacing the course list; a course without an id is refused")
    func trainings() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            let list: JSONValue = [["id": "tr-new", "title": "New", "video_url": "https://example.com/new.mp4", "video_size": 10]]
            #expect(try await api.call(.put, "/_admin/trainings", body: ["trainings": list])["trainings"] == list)
            #expect(try await api.call(.get, "/trainings", bearer: login.access)["trainings"] == list)
            #expect(try await api.call(.put, "/_admin/trainings", body: ["trainings": [["title": "x"]]]).status == 400)
        }
    }

    @Test("reset: no users, sessions, logins or counts; tokens of before are refused")
    func reset() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            _ = try await api.upload([Sessions.make(1)], token: login.access)
            _ = try await api.call(.post, "/_admin/reset")
            #expect(try await api.call(.get, "/_admin/sessions")["total"] == 0)
            #expect(try await api.call(.get, "/_admin/users")["users"] == [])
            #expect(try await api.call(.get, "/_admin/counters")["routes"] == [:])
            #expect(try await api.call(.get, "/sessions", bearer: login.access).error == "invalid_token")
            _ = try await api.login("alice", device: "device-2")
        }
    }

    @Test("the session report: per-session arrivals, with bodies on request")
    func sessionReport() async throws {
        try await withBackend { api, _ in
            let alice = try await api.login("alice", device: "device-A")
            let bob = try await api.login("bob", device: "device-B")
            _ = try await api.upload([Sessions.make(1), Sessions.make(2)], token: alice.access)
            _ = try await api.upload([Sessions.make(1)], token: alice.access)
            _ = try await api.upload([Sessions.make(1)], token: bob.access)
            let report = try await api.call(.get, "/_admin/sessions?bodies=1")
            #expect(report["total"] == 3 && report["received_total"] == 4)
            guard case .array(let entries)? = report["sessions"] else {
                Issue.record("no sessions")
                return
            }
            #expect(entries.map { $0["user"] } == ["alice", "alice", "bob"])
            #expect(entries[0]["received"] == 2 && entries[0]["body"] == Sessions.make(1))
            #expect(entries[0]["started_at"] == "2025-12-24T07:00:01Z" && entries[0]["first_received_at"] == "2025-12-24T08:00:00Z")
            let bobReport = try await api.call(.get, "/_admin/sessions?user=bob")
            #expect(bobReport["total"] == 1)
            guard case .array(let bobEntries)? = bobReport["sessions"] else { return }
            #expect(bobEntries.first?["body"] == nil, "bodies only on request")
        }
    }

    @Test("without --no-admin the admin API exists; with it, it does not")
    func adminSwitch() async throws {
        try await withBackend({ $0.adminEnabled = false }) { api, _ in
            let counters = try await api.call(.get, "/_admin/counters")
            let reset = try await api.call(.post, "/_admin/reset")
            #expect(counters.status == 404 && reset.status == 404)
        }
    }
}

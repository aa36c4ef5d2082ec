import TestSupport
import Foundation
import Testing
@testable import ReferenceBackend

@Suite("State file: a restarted backend keeps what it answered for")
struct StateFileTests {
    @Test("users, bindings, sessions, arrivals, PATCHed stats, courses and tokens survive a restart")
    func restart() async throws {
        let scratch = try TemporaryDirectory(prefix: "ftms-backend-state")
        let path = scratch.file("state.jsonl")
        let clock = ManualClock()
        let tokens = Tokens()
        try await withBackend(clock: clock, { $0.statePath = path }) { api, _ in
            let login = try await api.login("alice", device: "device-A")
            _ = try await api.upload([Sessions.make(1), Sessions.make(2)], token: login.access)
            _ = try await api.upload([Sessions.make(1)], token: login.access)
            _ = try await api.call(.patch, "/users/me/stats", bearer: login.access, body: ["workout_streak": 7])
            _ = try await api.call(.put, "/_admin/trainings", body: ["trainings": [["id": "only"]]])
            let rotated = try await api.refresh(login.refresh, device: "device-A")
            await tokens.set(access: rotated["access_token"]?.string, refresh: rotated["refresh_token"]?.string, spent: login.refresh)
        }
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try await withBackend(clock: clock, { $0.statePath = path }) { api, _ in
            let (access, refresh, spent) = await tokens.values
            let sessions = try await api.call(.get, "/sessions", bearer: access)
            #expect(sessions["sessions"] == [Sessions.make(1), Sessions.make(2)])
            #expect(try await api.call(.get, "/users/me/stats", bearer: access)["workout_streak"] == 7)
            #expect(try await api.call(.get, "/trainings", bearer: access)["trainings"] == [["id": "only"]])
            #expect(try await api.call(.get, "/_admin/sessions")["received_total"] == 3)
            let bound = try await api.call(.post, "/auth/sso/apple", body: ["id_token": "test:alice", "device_id": "device-B"])
            #expect(bound.error == "device_already_bound")
            #expect(try await api.refresh(spent, device: "device-A").error == "invalid_token")
            // Reuse revoked the login, so the newest refresh token is dead too: the rotation
            // state survived the restart.
            #expect(try await api.refresh(refresh, device: "device-A").error == "invalid_token")
        }
    }

    @Test("a torn last line is dropped; the lines before it are kept")
    func tornTail() async throws {
        let scratch = try TemporaryDirectory(prefix: "ftms-backend-state")
        let path = scratch.file("state.jsonl")
        try await withBackend({ $0.statePath = path }) { api, _ in
            let login = try await api.login("alice")
            _ = try await api.upload([Sessions.make(1)], token: login.access)
        }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"session":{"user":"alice","ke"#.utf8))
        try handle.close()
        try await withBackend({ $0.statePath = path }) { api, _ in
            let report = try await api.call(.get, "/_admin/sessions")
            #expect(report["total"] == 1)
        }
    }

    @Test("a bad line in the middle refuses the start with a one-line error naming it")
    func corruptLine() throws {
        let scratch = try TemporaryDirectory(prefix: "ftms-backend-state")
        let path = scratch.file("state.jsonl")
        try Data("{\"signing_key\":\"AAAA\"}\nnot json\n{}\n".utf8).write(to: URL(fileURLWithPath: path))
        var configuration = BackendConfiguration()
        configuration.statePath = path
        do {
            _ = try BackendServer(configuration: configuration, clock: ManualClock().wall)
            Issue.record("a corrupt state file was accepted")
        } catch {
            #expect(error.description.hasPrefix("state file \(path) line 2 is not a state record"))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test("reset rewrites the file down to the signing key")
    func resetCompacts() async throws {
        let scratch = try TemporaryDirectory(prefix: "ftms-backend-state")
        let path = scratch.file("state.jsonl")
        try await withBackend({ $0.statePath = path }) { api, _ in
            let login = try await api.login("alice")
            _ = try await api.upload([Sessions.make(1)], token: login.access)
            _ = try await api.call(.post, "/_admin/reset")
        }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix(#"{"signing_key":"#))
    }
}

/// Tokens handed from one backend run to the next.
actor Tokens {
    private(set) var values: (access: String, refresh: String, spent: String) = ("", "", "")

    func set(access: String?, refresh: String?, spent: String) {
        values = (access ?? "", refresh ?? "", spent)
    }
}

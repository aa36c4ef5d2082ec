import Testing
@testable import ReferenceBackend

@Suite("Session routes: batch upload, duplicates, validation, downloads, stats")
struct SessionRouteTests {
    @Test("a clean batch: every session stored, updated_stats sums them")
    func cleanBatch() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            let response = try await api.upload((1...20).map { Sessions.make($0) }, token: login.access)
            #expect(response.status == 200)
            #expect(response["success_count"] == 20 && response["duplicate_count"] == 0 && response["failed_sessions"] == [])
            #expect(response["updated_stats"] == [
                "workout_total_count": 20, "workout_total_energy": 5000, "workout_total_distance": 240_000,
                "workout_total_duration": 34_000, "workout_streak": 1, "last_workout_date": "2025-12-24",
            ])
        }
    }

    @Test("SolidFocus's mixed batch: 17 new, 2 duplicates (one within the batch, any case), 1 invalid")
    func mixedBatch() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            _ = try await api.upload([Sessions.make(1)], token: login.access)
            var batch = (2...18).map { Sessions.make($0) }
            batch.append(Sessions.changing(Sessions.make(1), "session_id", to: .string(Sessions.id(1).uppercased())))
            batch.append(Sessions.make(5))
            batch.append(Sessions.changing(Sessions.make(99), "duration", to: -1))
            let response = try await api.upload(batch, token: login.access)
            #expect(response["success_count"] == 17 && response["duplicate_count"] == 2)
            #expect(response["failed_sessions"] == [["session_id": .string(Sessions.id(99)), "error": "validation_error", "message": "duration is negative"]])
            #expect(response["updated_stats"]?["workout_total_count"] == 18)
            let report = try await api.call(.get, "/_admin/sessions?user=alice")
            #expect(report["total"] == 18 && report["received_total"] == 20)
        }
    }

    @Test("the same batch twice: the second is all duplicates and the stats do not move")
    func idempotent() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            let batch = (1...5).map { Sessions.make($0) }
            let first = try await api.upload(batch, token: login.access)
            let second = try await api.upload(batch, token: login.access)
            #expect(second["success_count"] == 0 && second["duplicate_count"] == 5)
            #expect(second["updated_stats"] == first["updated_stats"])
        }
    }

    @Test("a session without an id is reported with a null session_id")
    func noID() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            let response = try await api.upload([Sessions.changing(Sessions.make(1), "session_id", to: nil), "junk"], token: login.access)
            #expect(response["failed_sessions"] == [
                ["session_id": .null, "error": "validation_error", "message": "missing session_id"],
                ["session_id": .null, "error": "validation_error", "message": "a session must be an object, not a string"],
            ])
        }
    }

    @Test("whole-call refusals: too many sessions, no sessions array, not JSON")
    func callRefusals() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            let big = try await api.upload((1...21).map { Sessions.make($0) }, token: login.access)
            #expect(big.status == 400 && big.error == "batch_too_large")
            let shapeless = try await api.call(.post, "/sessions/batch_upload", bearer: login.access, body: ["session": []])
            #expect(shapeless.status == 400 && shapeless.error == "invalid_request")
            let garbled = try await api.call(.post, "/sessions/batch_upload", bearer: login.access, raw: "{\"sessions\": [")
            #expect(garbled.status == 400 && garbled["message"] == "the body is not JSON: expected a value, found the end at byte 14")
            let empty = try await api.upload([], token: login.access)
            #expect(empty.status == 200 && empty["success_count"] == 0)
            #expect(try await api.call(.get, "/_admin/sessions")["total"] == 0)
        }
    }

    @Test("a body over the limit is 413 payload_too_large, and nothing is stored")
    func bodyLimit() async throws {
        try await withBackend({ $0.maxBodyBytes = 2048 }) { api, _ in
            let login = try await api.login("alice")
            let big = try await api.upload((1...20).map { Sessions.make($0) }, token: login.access)
            #expect(big.status == 413 && big.error == "payload_too_large")
            #expect(try await api.upload([Sessions.make(1)], token: login.access)["success_count"] == 1)
            #expect(try await api.call(.get, "/_admin/sessions")["total"] == 1)
        }
    }

    @Test("POST /sessions: 201, then 400 duplicate_session, and 400 validation_error")
    func singleUpload() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            let created = try await api.call(.post, "/sessions", bearer: login.access, body: Sessions.make(1))
            #expect(created.status == 201 && created["session_id"] == .string(Sessions.id(1)))
            #expect(created["updated_stats"]?["workout_total_count"] == 1)
            let again = try await api.call(.post, "/sessions", bearer: login.access, body: Sessions.make(1))
            #expect(again.status == 400 && again.error == "duplicate_session")
            let invalid = try await api.call(.post, "/sessions", bearer: login.access, body: Sessions.changing(Sessions.make(2), "ended_at", to: "2025-12-24T06:00:00Z"))
            #expect(invalid.status == 400 && invalid.error == "validation_error" && invalid["message"] == "ended_at is before started_at")
        }
    }

    @Test("GET /sessions: the user's own sessions, as sent, oldest first")
    func download() async throws {
        try await withBackend { api, _ in
            let alice = try await api.login("alice", device: "device-A")
            let bob = try await api.login("bob", device: "device-B")
            let sessions = [Sessions.make(1, day: 24), Sessions.make(2, day: 20), Sessions.make(3, day: 22)]
            _ = try await api.upload(sessions, token: alice.access)
            _ = try await api.upload([Sessions.make(4)], token: bob.access)
            let listed = try await api.call(.get, "/sessions", bearer: alice.access)
            #expect(listed["sessions"] == .array([sessions[1], sessions[2], sessions[0]]))
            #expect(try await api.call(.get, "/sessions", bearer: bob.access)["sessions"] == [Sessions.make(4)])
        }
    }

    @Test("PATCH stats wins until the next new session; duplicates keep the override")
    func patchOverride() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            _ = try await api.upload([Sessions.make(1), Sessions.make(2, day: 23)], token: login.access)
            let patched = try await api.call(.patch, "/users/me/stats", bearer: login.access, body: ["workout_total_energy": 999, "workout_streak": 9])
            #expect(patched.status == 200 && patched["workout_total_energy"] == 999 && patched["workout_total_count"] == 2)
            #expect(try await api.call(.get, "/users/me/stats", bearer: login.access)["workout_streak"] == 9)
            let duplicate = try await api.upload([Sessions.make(1)], token: login.access)
            #expect(duplicate["updated_stats"]?["workout_total_energy"] == 999)
            let fresh = try await api.upload([Sessions.make(3, day: 22)], token: login.access)
            #expect(fresh["updated_stats"]?["workout_total_energy"] == 750 && fresh["updated_stats"]?["workout_streak"] == 3)
            let bad = try await api.call(.patch, "/users/me/stats", bearer: login.access, body: ["workout_total_energy": -1])
            #expect(bad.status == 400 && bad.error == "invalid_request")
        }
    }

    @Test("GET /trainings: the built-in courses with SolidFocus's fields")
    func trainings() async throws {
        try await withBackend { api, _ in
            let login = try await api.login("alice")
            guard case .array(let list)? = try await api.call(.get, "/trainings", bearer: login.access)["trainings"] else {
                Issue.record("no trainings array")
                return
            }
            #expect(list.count == 3)
            for training in list {
                for key in ["id", "title", "video_url", "video_size", "duration", "difficulty", "stages"] {
                    #expect(training[key] != nil, "\(key)")
                }
            }
        }
    }

    @Test("unknown routes and methods answer in the common error shape")
    func unknownRoutes() async throws {
        try await withBackend { api, _ in
            let missing = try await api.call(.get, "/nowhere")
            #expect(missing.status == 404 && missing.error == "not_found")
            let method = try await api.call(.delete, "/sessions")
            #expect(method.status == 405 || method.status == 404)
            #expect(method.error != nil)
        }
    }
}

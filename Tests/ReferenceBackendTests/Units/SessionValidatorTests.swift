import JSON
import Testing
@testable import ReferenceBackend

@Suite("Session validation (SolidFocus Flow 4)")
struct SessionValidatorTests {
    @Test("a complete session is accepted, with its figures and a lower-cased key")
    func accepted() throws {
        let session = Sessions.changing(Sessions.make(1), "session_id", to: "ABCDEF00-0000-4000-8000-000000000001")
        let accepted = try SessionValidator.check(session).get()
        #expect(accepted.sessionID == "ABCDEF00-0000-4000-8000-000000000001")
        #expect(accepted.key == "abcdef00-0000-4000-8000-000000000001")
        #expect(accepted.figures.duration == 1700 && accepted.figures.energy == 250 && accepted.figures.distance == 12_000)
        #expect(accepted.figures.endedAt - accepted.figures.startedAt == 3600)
    }

    @Test("optional fields: no detail, null detail, null raw, Base64 raw, whole-valued 12.0")
    func optionalFields() {
        let base = Sessions.make(2)
        for variant in [
            Sessions.changing(base, "detail", to: nil), Sessions.changing(base, "detail", to: .null),
            Sessions.changing(base, "raw", to: .null), Sessions.changing(base, "raw", to: "AAEC"),
            Sessions.changing(base, "total_energy", to: 12.0),
        ] {
            #expect((try? SessionValidator.check(variant).get()) != nil)
        }
    }

    static let refusals: [(String, JSONValue?, String)] = [
        ("session_id", nil, "missing session_id"),
        ("session_id", "not-a-uuid", "session_id must be a UUID string"),
        ("session_id", 42, "session_id must be a UUID string"),
        ("started_at", nil, "missing started_at"),
        ("started_at", "2025-12-24T07:00:00", "started_at must be an ISO 8601 time with a zone, like 2025-12-24T07:30:00Z"),
        ("started_at", "2025-12-24 07:00:00Z", "started_at must be an ISO 8601 time with a zone, like 2025-12-24T07:30:00Z"),
        ("ended_at", "2025-12-24T06:00:00Z", "ended_at is before started_at"),
        ("duration", -5, "duration is negative"),
        ("duration", nil, "missing duration"),
        ("duration", "1700", "duration must be a whole number, not a string"),
        ("duration", 3602, "duration 3602 s exceeds ended_at − started_at"),
        ("total_energy", 12.5, "total_energy must be a whole number up to 9007199254740991"),
        ("total_distance", 9_007_199_254_740_992, "total_distance must be a whole number up to 9007199254740991"),
        ("total_distance", -1, "total_distance is negative"),
        ("detail", "fast", "detail must be an object, not a string"),
        ("raw", "%%%", "raw must be a Base64 string"),
    ]

    @Test("each rule refuses with its one-line message", arguments: 0..<refusals.count)
    func refused(index: Int) {
        let (key, value, message) = Self.refusals[index]
        let session = Sessions.changing(Sessions.make(3), key, to: value)
        guard case .failure(let refusal) = SessionValidator.check(session) else {
            Issue.record("\(key) = \(String(describing: value)) was accepted")
            return
        }
        #expect(refusal.message == message)
        #expect(refusal.sessionID == (key == "session_id" ? value?.string : Sessions.id(3)))
    }

    @Test("a session that is not an object has no id to report")
    func notAnObject() {
        #expect(SessionValidator.check([1, 2]) == .failure(.init(sessionID: nil, message: "a session must be an object, not a list")))
    }

    @Test("duration may exceed the span by at most one second of rounding")
    func durationSlack() {
        #expect((try? SessionValidator.check(Sessions.changing(Sessions.make(4), "duration", to: 3601)).get()) != nil)
        #expect((try? SessionValidator.check(Sessions.changing(Sessions.make(4), "duration", to: 3602)).get()) == nil)
    }
}

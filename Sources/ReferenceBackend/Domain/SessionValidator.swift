import Clocks
import CivilTime
import JSON
import FoundationEssentials

/// The seed's server-side validation of one uploaded session (Flow 4: "Server 只負責儲存與驗證").
///
/// Every rule is one line of docs/backend-api.md. A refused session is reported in
/// `failed_sessions` as `validation_error` and is never stored; its batch-mates are unaffected.
enum SessionValidator {
    /// `duration` may exceed `ended_at − started_at` by this much, for clients that round each
    /// figure on its own.
    static let durationSlack = 1.0

    struct Refusal: Error, Equatable {
        /// The id if the session had a readable one (`failed_sessions[].session_id`).
        let sessionID: String?
        let message: String
    }

    struct Accepted: Equatable {
        /// As sent.
        let sessionID: String
        /// Lower-case: the duplicate-detection key, so `ABC…` and `abc…` are one session.
        let key: String
        let figures: SessionFigures
    }

    static func check(_ session: JSONValue) -> Result<Accepted, Refusal> {
        guard session.isObject else { return .failure(Refusal(sessionID: nil, message: "a session must be an object, not \(session.kind)")) }
        guard let id = session["session_id"] else { return .failure(Refusal(sessionID: nil, message: "missing session_id")) }
        guard let sessionID = id.string, isUUID(sessionID) else {
            return .failure(Refusal(sessionID: id.string, message: "session_id must be a UUID string"))
        }
        func refuse(_ message: String) -> Result<Accepted, Refusal> {
            .failure(Refusal(sessionID: sessionID, message: message))
        }
        let started: Double
        let ended: Double
        switch (time(session, "started_at"), time(session, "ended_at")) {
        case (.failure(let problem), _), (_, .failure(let problem)): return refuse(problem.message)
        case (.success(let start), .success(let end)): (started, ended) = (start, end)
        }
        guard ended >= started else { return refuse("ended_at is before started_at") }
        let duration: Int64
        let energy: Int64
        let distance: Int64
        switch (count(session, "duration"), count(session, "total_energy"), count(session, "total_distance")) {
        case (.failure(let problem), _, _), (_, .failure(let problem), _), (_, _, .failure(let problem)): return refuse(problem.message)
        case (.success(let d), .success(let e), .success(let m)): (duration, energy, distance) = (d, e, m)
        }
        guard Double(duration) <= ended - started + durationSlack else {
            return refuse("duration \(duration) s exceeds ended_at − started_at")
        }
        if let detail = session["detail"], !detail.isObject, detail != .null {
            return refuse("detail must be an object, not \(detail.kind)")
        }
        if let raw = session["raw"], raw != .null {
            guard let text = raw.string, Data(base64Encoded: text) != nil else { return refuse("raw must be a Base64 string") }
        }
        let figures = SessionFigures(
            startedAt: started, endedAt: ended, duration: duration, energy: energy,
            distance: distance)
        return .success(Accepted(sessionID: sessionID, key: sessionID.lowercased(), figures: figures))
    }

    /// Seconds since 1970, fraction included, of an RFC 3339 time (docs/backend-api.md: a zone required).
    private static func time(_ session: JSONValue, _ key: String) -> Result<Double, FieldProblem> {
        guard let value = session[key], value != .null else { return .failure(FieldProblem("missing \(key)")) }
        guard let text = value.string, let time = ISO8601.parse(text, .rfc3339) else {
            return .failure(FieldProblem("\(key) must be an ISO 8601 time with a zone, like 2025-12-24T07:30:00Z"))
        }
        return .success(time.seconds)
    }

    /// A whole, non-negative number (seconds, kcal, metres): stats are sums of exactly these.
    private static func count(_ session: JSONValue, _ key: String) -> Result<Int64, FieldProblem> {
        guard let value = session[key], value != .null else { return .failure(FieldProblem("missing \(key)")) }
        guard let number = value.integer else {
            switch value {
            case .integer, .number: return .failure(FieldProblem("\(key) must be a whole number up to \(JSONValue.maxSafeInteger)"))
            default: return .failure(FieldProblem("\(key) must be a whole number, not \(value.kind)"))
            }
        }
        guard number >= 0 else { return .failure(FieldProblem("\(key) is negative")) }
        return .success(number)
    }

    struct FieldProblem: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// `8-4-4-4-12` hexadecimal digits, either case.
    static func isUUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }
}

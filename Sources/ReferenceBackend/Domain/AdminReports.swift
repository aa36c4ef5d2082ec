import JSON

/// The bodies of the admin API's reports (docs/backend-api.md, "Admin API").

/// `GET /_admin/sessions`.
struct AdminSessionsReport: Sendable, Codable {
    struct Entry: Sendable, Codable {
        let user: String
        let sessionID: String
        /// Times this session arrived: 1, plus one per duplicate.
        let received: Int
        let startedAt: String
        let firstReceivedAt: String
        let body: JSONValue?

        enum CodingKeys: String, CodingKey {
            case user, received, body
            case sessionID = "session_id"
            case startedAt = "started_at"
            case firstReceivedAt = "first_received_at"
        }
    }

    let total: Int
    let receivedTotal: Int
    let sessions: [Entry]

    enum CodingKeys: String, CodingKey {
        case total, sessions
        case receivedTotal = "received_total"
    }
}

/// One user in `GET /_admin/users`.
struct AdminUserEntry: Sendable, Codable {
    let profile: UserProfile
    let sessions: Int
    let stats: UserStats
    let statsPatched: Bool
    let activeLogins: Int

    enum CodingKeys: String, CodingKey {
        case profile, sessions, stats
        case statsPatched = "stats_patched"
        case activeLogins = "active_logins"
    }
}

/// `GET`/`POST`/`DELETE /_admin/faults`: each rule with what it has seen and done.
struct FaultsReport: Sendable, Encodable {
    struct Item: Sendable, Encodable {
        let rule: String
        let seen: Int
        let fired: Int
        let exhausted: Bool
    }

    let rules: [Item]

    init(_ entries: [FaultBoard.Entry]) {
        rules = entries.map { Item(rule: $0.rule.spec, seen: $0.seen, fired: $0.fired, exhausted: $0.exhausted) }
    }
}

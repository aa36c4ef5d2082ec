import CivilTime
import JSON
import FoundationEssentials

/// Everything the backend keeps: users, their sessions and stats, logins, the course list and
/// the signing key. A value, so replay, reset and snapshots are plain assignments.
struct BackendState: Sendable {
    var signingKey: [UInt8]
    var users: [String: UserRecord] = [:]
    /// User → lower-cased session id → session.
    var sessions: [String: [String: AcceptedSession]] = [:]
    var tallies: [String: StatsTally] = [:]
    var families: [String: TokenFamily] = [:]
    var trainings: [JSONValue] = DefaultTrainings.list
    let timeZone: TimeZone

    init(signingKey: [UInt8], timeZone: TimeZone) {
        self.signingKey = signingKey
        self.timeZone = timeZone
    }

    /// The state the lines describe; the signing key is the file's, or `fallbackKey`.
    init(replaying lines: [JournalLine], fallbackKey: [UInt8], timeZone: TimeZone) {
        self.init(signingKey: fallbackKey, timeZone: timeZone)
        for line in lines {
            if let key = line.signingKey, let bytes = Data(base64Encoded: key), bytes.count >= 32 { signingKey = Array(bytes) }
            if let user = line.user { users[user.subject] = user }
            if let family = line.family { families[family.id] = family }
            if let session = line.session { store(session) }
            if let receipt = line.receipt { sessions[receipt.user]?[receipt.key]?.received = receipt.received }
            if let list = line.trainings { trainings = list }
        }
    }

    /// One line per live thing: what a compacted state file holds.
    var snapshot: [JournalLine] {
        var lines = [JournalLine(signingKey: Data(signingKey).base64EncodedString())]
        lines += users.keys.sorted().compactMap { users[$0].map(JournalLine.init(user:)) }
        lines += families.values.sorted { $0.createdAt < $1.createdAt }.map(JournalLine.init(family:))
        for user in sessions.keys.sorted() {
            lines += ordered(sessionsOf: user).map(JournalLine.init(session:))
        }
        if trainings != DefaultTrainings.list { lines.append(JournalLine(trainings: trainings)) }
        return lines
    }

    /// Adds `session`, or puts it in the place of the stored one with its key (a later
    /// summary): then the user's stats are summed again, so the session counts once, with the
    /// figures that stand.
    mutating func store(_ session: AcceptedSession) {
        let replacing = sessions[session.user]?[session.key] != nil
        sessions[session.user, default: [:]][session.key] = session
        if replacing {
            var tally = StatsTally()
            for stored in (sessions[session.user] ?? [:]).values { tally.add(stored.figures, on: day(of: stored.figures)) }
            tallies[session.user] = tally
        } else {
            tallies[session.user, default: StatsTally()].add(session.figures, on: day(of: session.figures))
        }
    }

    /// A user's sessions, oldest `started_at` first.
    func ordered(sessionsOf user: String) -> [AcceptedSession] {
        (sessions[user] ?? [:]).values.sorted { ($0.figures.startedAt, $0.key) < ($1.figures.startedAt, $1.key) }
    }

    /// What `updated_stats` and `GET /users/me/stats` say: the last PATCH if no session came
    /// since, otherwise the sum of the sessions.
    func stats(of user: String) -> UserStats {
        users[user]?.statsOverride ?? tallies[user]?.stats ?? .empty
    }

    /// The calendar day a session counts on: its start, in the configured zone.
    func day(of figures: SessionFigures) -> LocalDate {
        let seconds = Int64(figures.startedAt.rounded(.down))
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
        return LocalDate(secondsSince1970: seconds, offset: Int64(offset))
    }
}

import CivilTime
import JSON

/// What `/_admin/*` reads and changes: introspection for tests, and the operator's levers.
extension Backend {
    func sessionsReport(user: String?, includeBodies: Bool) -> AdminSessionsReport {
        let subjects = user.map { [$0] } ?? state.sessions.keys.sorted()
        var entries: [AdminSessionsReport.Entry] = []
        for subject in subjects {
            for session in state.ordered(sessionsOf: subject) {
                entries.append(
                    AdminSessionsReport.Entry(
                        user: subject, sessionID: session.body["session_id"]?.string ?? session.key, received: session.received,
                        startedAt: session.body["started_at"]?.string ?? "",
                        firstReceivedAt: ISO8601.string(secondsSince1970: Int64(session.firstReceivedAt.rounded(.down))),
                        body: includeBodies ? session.body : nil))
            }
        }
        return AdminSessionsReport(total: entries.count, receivedTotal: entries.reduce(0) { $0 + $1.received }, sessions: entries)
    }

    func countersReport() -> Counters {
        counters
    }

    func usersReport() -> [AdminUserEntry] {
        state.users.values.sorted { $0.subject < $1.subject }.map { user in
            AdminUserEntry(
                profile: user.profile, sessions: state.sessions[user.subject]?.count ?? 0, stats: state.stats(of: user.subject),
                statsPatched: user.statsOverride != nil,
                activeLogins: state.families.values.filter { $0.subject == user.subject && !$0.revoked }.count)
        }
    }

    /// Operator unbinding (SolidFocus: "contact support"): releases the binding and revokes the
    /// user's logins everywhere.
    func unbind(subject: String) throws(BackendRefusal) {
        guard state.users[subject] != nil else { throw .notFound("no user \(subject)") }
        try release(subject: subject, deviceID: nil)
    }

    func replaceTrainings(_ body: JSONValue) throws(BackendRefusal) -> TrainingsResponse {
        guard case .array(let list)? = body["trainings"] else { throw .invalidRequest("the body must be {\"trainings\": [...]}") }
        for training in list {
            if let problem = DefaultTrainings.problem(with: training) { throw .invalidRequest(problem) }
        }
        state.trainings = list
        try persist([JournalLine(trainings: list)])
        return TrainingsResponse(trainings: list)
    }

    /// Token lifetimes for tokens issued from now on, and expiry of the ones already issued.
    func updateTokens(_ body: JSONValue) throws(BackendRefusal) -> TokenSettings {
        guard case .object(let fields) = body else { throw .invalidRequest("the body must be an object") }
        let known: Set<String> = ["access_lifetime", "refresh_lifetime", "refresh_grace", "expire_access", "expire_refresh"]
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) { throw .invalidRequest("unknown field \(unknown)") }
        var settings = tokenSettings
        func seconds(_ key: String, minimum: Int64) throws(BackendRefusal) -> Int? {
            guard let value = fields[key] else { return nil }
            guard let number = value.integer, number >= minimum, number <= 400 * 86_400 else {
                throw .invalidRequest("\(key) must be whole seconds ≥ \(minimum)")
            }
            return Int(number)
        }
        settings.accessLifetime = try seconds("access_lifetime", minimum: 1) ?? settings.accessLifetime
        settings.refreshLifetime = try seconds("refresh_lifetime", minimum: 1) ?? settings.refreshLifetime
        settings.refreshGrace = try seconds("refresh_grace", minimum: 0) ?? settings.refreshGrace
        func flag(_ key: String) throws(BackendRefusal) -> Bool {
            guard let value = fields[key] else { return false }
            guard case .bool(let set) = value else { throw .invalidRequest("\(key) must be true or false") }
            return set
        }
        let expireAccess = try flag("expire_access")
        let expireRefresh = try flag("expire_refresh")
        tokenSettings = settings
        if expireAccess { accessExpiredThrough = sequence }
        if expireRefresh { refreshExpiredThrough = sequence }
        return settings
    }
}

import JSON

/// SolidFocus Flow 4 (batch upload and its per-session results), Flow 2's downloads, and stats.
extension Backend {
    func uploadBatch(_ principal: Principal, body: JSONValue) throws(BackendRefusal) -> BatchUploadResponse {
        guard case .array(let sessions)? = body["sessions"] else { throw .invalidRequest("the body must be {\"sessions\": [...]}") }
        guard sessions.count <= configuration.maxBatchSize else {
            throw BackendRefusal(
                status: 400, code: "batch_too_large",
                message: "\(sessions.count) sessions in one batch; at most \(configuration.maxBatchSize)")
        }
        var response = BatchUploadResponse(successCount: 0, duplicateCount: 0, failedSessions: [], updatedStats: .empty)
        var lines: [JournalLine] = []
        for session in sessions {
            switch receive(session, for: principal.subject, route: .batchUpload, into: &lines) {
            case .stored: response.successCount += 1
            case .duplicate: response.duplicateCount += 1
            case .refused(let failure): response.failedSessions.append(failure)
            }
        }
        try commit(lines, storedSessions: response.successCount, for: principal.subject)
        response.updatedStats = state.stats(of: principal.subject)
        return response
    }

    /// `POST /sessions`: one session; a repeat is `400 duplicate_session` (SolidFocus's error
    /// table) rather than a count.
    func uploadOne(_ principal: Principal, body: JSONValue) throws(BackendRefusal) -> SingleUploadResponse {
        var lines: [JournalLine] = []
        switch receive(body, for: principal.subject, route: .upload, into: &lines) {
        case .stored(let sessionID):
            try commit(lines, storedSessions: 1, for: principal.subject)
            return SingleUploadResponse(sessionID: sessionID, updatedStats: state.stats(of: principal.subject))
        case .duplicate(let sessionID):
            try commit(lines, storedSessions: 0, for: principal.subject)
            throw BackendRefusal(status: 400, code: "duplicate_session", message: "session \(sessionID) is already stored")
        case .refused(let failure):
            throw BackendRefusal(status: 400, code: failure.error, message: failure.message)
        }
    }

    /// Stores sessions as the operator's own, bypassing tokens and faults: for tests that need
    /// the server to hold sessions the gateway never sent (`GET /sessions` merges, stats that
    /// differ). Creates the user if needed.
    func inject(_ body: JSONValue, for subject: String) throws(BackendRefusal) -> BatchUploadResponse {
        guard case .array(let sessions)? = body["sessions"] else { throw .invalidRequest("the body must be {\"sessions\": [...]}") }
        var lines: [JournalLine] = []
        if state.users[subject] == nil {
            let user = UserRecord(subject: subject, provider: "test", createdAt: Int64(now.rounded(.down)))
            state.users[subject] = user
            lines.append(JournalLine(user: user))
        }
        var response = BatchUploadResponse(successCount: 0, duplicateCount: 0, failedSessions: [], updatedStats: .empty)
        for session in sessions {
            switch receive(session, for: subject, route: nil, into: &lines) {
            case .stored: response.successCount += 1
            case .duplicate: response.duplicateCount += 1
            case .refused(let failure): response.failedSessions.append(failure)
            }
        }
        try commit(lines, storedSessions: response.successCount, for: subject)
        response.updatedStats = state.stats(of: subject)
        return response
    }

    func sessions(of principal: Principal) -> SessionsResponse {
        SessionsResponse(sessions: state.ordered(sessionsOf: principal.subject).map(\.body))
    }

    func stats(of principal: Principal) -> UserStats {
        state.stats(of: principal.subject)
    }

    /// The gateway wins (contract §6): what it sends stands until the next accepted session.
    func patchStats(_ principal: Principal, body: JSONValue) throws(BackendRefusal) -> UserStats {
        let patched = try StatsPatch(body).applied(to: state.stats(of: principal.subject))
        var user = try user(principal.subject)
        user.statsOverride = patched
        state.users[user.subject] = user
        try persist([JournalLine(user: user)])
        return patched
    }

    func me(_ principal: Principal) throws(BackendRefusal) -> MeResponse {
        MeResponse(userProfile: try user(principal.subject).profile, stats: state.stats(of: principal.subject))
    }

    func trainings() -> TrainingsResponse {
        TrainingsResponse(trainings: state.trainings)
    }

    /// A replacing summary is `stored`: the gateway counts it as acknowledged like any stored
    /// session, and its stats change as a new session's would.
    private enum Receipt {
        case stored(String)
        case duplicate(String)
        case refused(FailedSession)
    }

    /// One session through validation, duplicate detection and the `invalid` fault (`route`
    /// `nil`: no faults). A second summary of a stored session replaces it only if it ended
    /// later (``SessionFigures/supersedes(_:)``); any other is a duplicate, whatever its
    /// content, and the stored one stays.
    private func receive(_ session: JSONValue, for subject: String, route: RouteName?, into lines: inout [JournalLine]) -> Receipt {
        let accepted: SessionValidator.Accepted
        switch SessionValidator.check(session) {
        case .success(let valid): accepted = valid
        case .failure(let refusal):
            counters.sessionsRefused += 1
            return .refused(FailedSession(sessionID: refusal.sessionID, error: "validation_error", message: refusal.message))
        }
        let earlier = state.sessions[subject]?[accepted.key]
        if var stored = earlier, !accepted.figures.supersedes(stored.figures) {
            stored.received += 1
            state.sessions[subject]?[accepted.key] = stored
            lines.append(JournalLine(receipt: .init(user: subject, key: accepted.key, received: stored.received)))
            counters.duplicatesReceived += 1
            return .duplicate(accepted.sessionID)
        }
        if let route, let rule = faults.fire(.invalid, on: route) {
            counters.faults[FaultRule.Kind.invalid.rawValue, default: 0] += 1
            counters.sessionsRefused += 1
            return .refused(FailedSession(sessionID: accepted.sessionID, error: rule.error, message: "injected fault (\(rule.spec))"))
        }
        let stored =
            earlier?.replaced(by: session, figures: accepted.figures)
            ?? AcceptedSession(user: subject, key: accepted.key, body: session, figures: accepted.figures, received: 1, firstReceivedAt: now)
        state.store(stored)
        lines.append(JournalLine(session: stored))
        if earlier == nil { counters.sessionsAccepted += 1 } else { counters.sessionsReplaced += 1 }
        return .stored(accepted.sessionID)
    }

    /// Persists a call's changes; stored sessions (new or replacing) end a PATCHed override
    /// (the server computes from sessions again).
    private func commit(_ lines: [JournalLine], storedSessions: Int, for subject: String) throws(BackendRefusal) {
        var lines = lines
        if storedSessions > 0, var user = state.users[subject], user.statsOverride != nil {
            user.statsOverride = nil
            state.users[subject] = user
            lines.append(JournalLine(user: user))
        }
        try persist(lines)
    }
}

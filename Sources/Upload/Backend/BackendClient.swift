package import Clocks
import JSON
package import Store
package import Workout

/// The SolidFocus backend's routes (SolidFocus), as typed calls. Stateless: tokens come in
/// per call, and ``TokenAuthority`` decides which.
///
/// Every call has a timeout for the whole exchange. Nothing here logs, and errors carry
/// codes and messages from the backend, never a token.
package struct BackendClient: Sendable {
    package let transport: any HTTPTransport
    /// The limit for one call; a batch upload gets the same.
    package let timeout: Duration
    /// What a `Retry-After` date is read against when the answer has no `Date` of its own.
    package let wall: WallClock
    /// Told every answer's `Date` (contract §5: the backend's clock, a source of true time when
    /// the gateway has none); `nil` where nobody listens, or the backend is not believed
    /// (``BackendDateSample/trusts(baseURL:)``).
    package let dateWitness: (@Sendable (BackendDateSample) -> Void)?

    package init(
        transport: any HTTPTransport, timeout: Duration = .seconds(10), wall: WallClock = .system,
        dateWitness: (@Sendable (BackendDateSample) -> Void)? = nil
    ) {
        self.transport = transport
        self.timeout = timeout
        self.wall = wall
        self.dateWitness = dateWitness
    }

    /// A client of the backend at `baseURL` over AsyncHTTPClient; `dateWitness` hears its
    /// answers' dates only if the backend's word on the time is believed.
    package init(
        baseURL: String, timeout: Duration = .seconds(10), clock: any Clock<Duration> = ContinuousClock(),
        dateWitness: (@Sendable (BackendDateSample) -> Void)? = nil
    ) throws {
        self.init(
            transport: try AsyncHTTPTransport(baseURL: baseURL, clock: clock), timeout: timeout,
            dateWitness: BackendDateSample.trusts(baseURL: baseURL) ? dateWitness : nil)
    }

    /// Asks the backend for nothing but its `Date`: `GET /`, without a token, whatever the
    /// status. For a gateway whose sessions wait for a true clock and that has nothing else to
    /// send (contract §5).
    package func askTime() async throws {
        _ = try await send(BackendRequest(.get, "/"))
    }

    // MARK: Auth (Flows 2, 6, 8)

    /// `POST /auth/sso/{provider}`. A 401 is ``BackendError/invalidIDToken(message:)``, a 403
    /// `device_already_bound` is ``BackendError/deviceAlreadyBound(message:)``.
    package func login(provider: String, idToken: String, deviceID: String) async throws -> TokenGrant {
        guard !provider.isEmpty, provider.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }) else {
            throw BackendError.badConfiguration("provider must be lowercase letters, digits, - or _ (apple, google, test), got \(provider)")
        }
        let body = JSONFields.encode(["id_token": idToken, "device_id": deviceID])
        let reply = try await send(BackendRequest(.post, "/auth/sso/\(provider)", body: body))
        if reply.status == 401 { throw BackendError.invalidIDToken(message: ErrorBody(reply.body).message) }
        try check(reply)
        return try grant(reply.body, "login", profile: true)
    }

    /// `POST /auth/refresh` with the refresh token as Bearer. Any 401 means the refresh
    /// token is no good (expired, rotated away, revoked): ``BackendError/loginRequired(reason:)``.
    package func refresh(refreshToken: String, deviceID: String) async throws -> TokenGrant {
        let reply = try await send(BackendRequest(
            .post, "/auth/refresh", bearer: refreshToken, body: JSONFields.encode(["device_id": deviceID])))
        if reply.status == 401 {
            let error = ErrorBody(reply.body)
            throw BackendError.loginRequired(reason: "the backend refused the refresh token (\(error.code ?? "HTTP 401"))")
        }
        try check(reply)
        return try grant(reply.body, "refresh", profile: false)
    }

    /// `POST /auth/logout`.
    package func logout(accessToken: String, deviceID: String, refreshToken: String) async throws {
        let body = JSONFields.encode(["device_id": deviceID, "refresh_token": refreshToken])
        try check(try await send(BackendRequest(.post, "/auth/logout", bearer: accessToken, body: body)))
    }

    // MARK: Sessions and stats (Flows 2 and 4)

    /// `POST /sessions/batch_upload` with sessions already in their JSON form, sent as they
    /// are stored: the body is spliced, not re-encoded.
    package func batchUpload(_ sessions: [String], accessToken: String) async throws -> BatchUploadAnswer {
        var body: [UInt8] = []
        body.reserveCapacity(sessions.reduce(16) { $0 + $1.utf8.count + 1 })
        body.append(contentsOf: #"{"sessions":["#.utf8)
        for (index, session) in sessions.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: session.utf8)
        }
        body.append(contentsOf: "]}".utf8)
        let reply = try await send(BackendRequest(.post, "/sessions/batch_upload", bearer: accessToken, body: body))
        try check(reply)
        return try batchAnswer(reply.body, sent: sessions.count)
    }

    /// `GET /sessions`: the account's sessions as records. Entries that are not sessions are
    /// left out and counted.
    package func sessions(accessToken: String) async throws -> (records: [SessionRecord], skipped: Int) {
        let reply = try await send(BackendRequest(.get, "/sessions", bearer: accessToken))
        try check(reply)
        let document = try JSONFields.value(reply.body, "GET /sessions")
        guard let list = document["sessions"]?.array ?? document.array else {
            throw BackendError.badResponse("GET /sessions: no sessions array")
        }
        var records: [SessionRecord] = []
        records.reserveCapacity(list.count)
        for element in list {
            if let record = SessionRecord(uploaded: element) { records.append(record) }
        }
        return (records, list.count - records.count)
    }

    /// `GET /users/me/stats`.
    package func stats(accessToken: String) async throws -> WorkoutStats {
        let reply = try await send(BackendRequest(.get, "/users/me/stats", bearer: accessToken))
        try check(reply)
        let object = try JSONFields.object(reply.body, "GET /users/me/stats")
        return try JSONFields.stats(object["stats"] ?? .object(object), "GET /users/me/stats")
    }

    /// `PATCH /users/me/stats` with the gateway's stats (the gateway wins).
    package func patchStats(_ stats: WorkoutStats, accessToken: String) async throws {
        try check(try await send(BackendRequest(.patch, "/users/me/stats", bearer: accessToken, body: JSONFields.statsBody(stats))))
    }

    /// `GET /trainings`: the `trainings` array as JSON text, for the cache.
    package func trainings(accessToken: String) async throws -> String {
        let reply = try await send(BackendRequest(.get, "/trainings", bearer: accessToken))
        try check(reply)
        guard let document = try? JSONReader.read(reply.body),
              let array = document["trainings"]?.array ?? document.array
        else { throw BackendError.badResponse("GET /trainings: no trainings array") }
        return JSONWriter.text(.array(array))
    }

    // MARK: Plumbing

    private func send(_ request: BackendRequest) async throws -> BackendReply {
        let reply = try await transport.send(request, timeout: timeout)
        if let dateWitness, let sample = BackendDateSample(reply) { dateWitness(sample) }
        return reply
    }

    /// Maps a non-2xx status to the error SolidFocus's tables name.
    func check(_ reply: BackendReply) throws {
        guard !(200..<300).contains(reply.status) else { return }
        let error = ErrorBody(reply.body)
        let retryAfter = RetryAfter.parse(reply.retryAfter, date: reply.date, now: wall.now())
        switch (reply.status, error.code) {
        case (401, "token_expired"):
            throw BackendError.tokenExpired
        case (401, _):
            throw BackendError.loginRequired(reason: "the backend refused the access token (\(error.code ?? "HTTP 401"))")
        case (403, "device_already_bound"):
            throw BackendError.deviceAlreadyBound(message: error.message)
        case (429, _):
            throw BackendError.rateLimited(retryAfter: retryAfter)
        case (500..., _):
            throw BackendError.server(status: reply.status, code: error.code, retryAfter: retryAfter)
        default:
            throw BackendError.rejected(status: reply.status, code: error.code, message: error.message)
        }
    }

    private func grant(_ body: [UInt8], _ what: String, profile: Bool) throws -> TokenGrant {
        let object = try JSONFields.object(body, what)
        guard let access = object["access_token"]?.string, !access.isEmpty else {
            throw BackendError.badResponse("\(what): no access_token")
        }
        guard let expiresIn = JSONFields.integer(object["expires_in"]), expiresIn > 0 else {
            throw BackendError.badResponse("\(what): no positive expires_in")
        }
        let refresh = object["refresh_token"]?.string
        if profile, refresh == nil { throw BackendError.badResponse("\(what): no refresh_token") }
        return TokenGrant(
            accessToken: access, refreshToken: refresh, expiresIn: expiresIn,
            userProfile: profile ? object["user_profile"].map(JSONWriter.text) : nil)
    }

    /// Checks the answer accounts for every session sent; an answer that does not is treated
    /// as a failed call, because marking unlisted sessions uploaded on its word could lose one.
    private func batchAnswer(_ body: [UInt8], sent: Int) throws -> BatchUploadAnswer {
        let object = try JSONFields.object(body, "batch_upload")
        guard let success = JSONFields.integer(object["success_count"]),
              let duplicates = JSONFields.integer(object["duplicate_count"])
        else { throw BackendError.badResponse("batch_upload: no success_count or duplicate_count") }
        var failures: [BatchUploadAnswer.Failure] = []
        for entry in object["failed_sessions"]?.array ?? [] {
            guard let id = entry["session_id"]?.string else {
                throw BackendError.badResponse("batch_upload: a failed session without a session_id")
            }
            failures.append(BatchUploadAnswer.Failure(
                sessionID: id.lowercased(), error: entry["error"]?.string ?? "unknown_error", message: entry["message"]?.string))
        }
        guard success + duplicates + failures.count == sent else {
            throw BackendError.badResponse("batch_upload: \(success) + \(duplicates) + \(failures.count) results for \(sent) sessions")
        }
        let stats = object["updated_stats"].flatMap { $0 == .null ? nil : $0 }
        return BatchUploadAnswer(
            successCount: success, duplicateCount: duplicates, failures: failures,
            updatedStats: try stats.map { try JSONFields.stats($0, "batch_upload updated_stats") })
    }
}

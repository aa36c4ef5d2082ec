import JSON
import FoundationEssentials

/// Who a request is from, once its access token has been checked.
struct Principal: Sendable, Hashable {
    let subject: String
    let deviceID: String
    let familyID: String
}

/// SolidFocus Flow 2 (login and device binding), Flow 8 (rolling refresh) and Flow 6 (logout).
extension Backend {
    static let providers: Set<String> = ["apple", "google", "test"]

    func login(provider: String, body: JSONValue) throws(BackendRefusal) -> LoginResponse {
        guard Self.providers.contains(provider) else {
            throw BackendRefusal(status: 400, code: "unsupported_provider", message: "unknown provider \(provider) (apple, google or test)")
        }
        guard body.isObject else { throw .invalidRequest("the body must be {id_token, device_id, user_info?}") }
        guard let idToken = body["id_token"]?.string, !idToken.isEmpty else { throw .invalidRequest("missing id_token") }
        let deviceID = try Self.deviceID(in: body)
        if let info = body["user_info"], info != .null, !info.isObject { throw .invalidRequest("user_info must be an object") }
        let identity: IDToken
        switch IDToken.read(idToken, now: now) {
        case .success(let token): identity = token
        case .failure(let refusal): throw .invalidToken(refusal.message)
        }
        if let bound = state.users[identity.subject]?.boundDeviceID, bound != deviceID {
            throw .deviceAlreadyBound("this account is bound to another device; log out there first, or contact support")
        }
        if state.users.values.contains(where: { $0.subject != identity.subject && $0.boundDeviceID == deviceID }) {
            throw .deviceAlreadyBound("this device is bound to another account; log that account out first")
        }
        var user = state.users[identity.subject] ?? UserRecord(subject: identity.subject, provider: provider, createdAt: Int64(now.rounded(.down)))
        user.adopt(identity: identity, userInfo: body["user_info"])
        user.boundDeviceID = deviceID
        var family = TokenFamily(
            id: UUID().uuidString.lowercased(), subject: user.subject, deviceID: deviceID, createdAt: now, currentRefreshID: "",
            refreshSeq: 0, refreshes: 0, revoked: false)
        let tokens = try issueTokens(for: &family)
        state.users[user.subject] = user
        state.families[family.id] = family
        try persist([JournalLine(user: user), JournalLine(family: family)])
        counters.logins[deviceID, default: 0] += 1
        return LoginResponse(accessToken: tokens.access, refreshToken: tokens.refresh, expiresIn: tokenSettings.accessLifetime, userProfile: user.profile)
    }

    func refresh(bearer: String?, body: JSONValue) throws(BackendRefusal) -> RefreshResponse {
        let deviceID = try? Self.deviceID(in: body)
        do throws(BackendRefusal) {
            let response = try rotate(bearer: bearer, deviceID: deviceID)
            counters.refreshes[deviceID ?? "", default: 0] += 1
            return response
        } catch {
            counters.refreshFailures[deviceID ?? "(none)", default: 0] += 1
            throw error
        }
    }

    private func rotate(bearer: String?, deviceID: String?) throws(BackendRefusal) -> RefreshResponse {
        guard let bearer else { throw .invalidToken("missing refresh token (Authorization: Bearer <refresh_token>)") }
        let claims = try verified(bearer, kind: .refresh)
        guard let deviceID else { throw .invalidRequest("missing device_id") }
        guard var family = state.families[claims.fam], !family.revoked else { throw .invalidToken("this login has been revoked; log in again") }
        guard claims.dev == deviceID else { throw .invalidToken("the refresh token belongs to another device") }
        guard now < Double(claims.exp), claims.seq > refreshExpiredThrough else {
            throw .tokenExpired("the refresh token has expired; log in again")
        }
        if claims.jti != family.currentRefreshID {
            let graceful = claims.jti == family.previousRefreshID
                && family.rotatedAt.map { now - $0 < Double(tokenSettings.refreshGrace) } == true
            guard graceful else {
                family.revoked = true
                state.families[family.id] = family
                try persist([JournalLine(family: family)])
                counters.reuseDetected += 1
                throw .invalidToken("the refresh token was already used; this login is revoked")
            }
        } else {
            family.previousRefreshID = family.currentRefreshID
            family.rotatedAt = now
        }
        let tokens = try issueTokens(for: &family)
        family.refreshes += 1
        state.families[family.id] = family
        try persist([JournalLine(family: family)])
        return RefreshResponse(accessToken: tokens.access, refreshToken: tokens.refresh, expiresIn: tokenSettings.accessLifetime)
    }

    /// Releases the device binding and revokes every login of that user on that device.
    ///
    /// The access token's signature is checked but not its expiry: a gateway logging out with
    /// a stale token still means to release its binding (SolidFocus Flow 6 goes on locally
    /// whatever the server says, and a binding left behind would lock the account out).
    func logout(bearer: String?, body: JSONValue) throws(BackendRefusal) {
        guard let bearer else { throw .invalidToken("missing access token (Authorization: Bearer <access_token>)") }
        let claims = try verified(bearer, kind: .access)
        let deviceID = try Self.deviceID(in: body)
        guard claims.dev == deviceID else {
            throw BackendRefusal(status: 403, code: "device_mismatch", message: "the access token belongs to another device")
        }
        try release(subject: claims.sub, deviceID: deviceID)
    }

    /// Unbinds `deviceID` from `subject` and revokes its logins.
    func release(subject: String, deviceID: String?) throws(BackendRefusal) {
        var lines: [JournalLine] = []
        if var user = state.users[subject], deviceID == nil || user.boundDeviceID == deviceID {
            user.boundDeviceID = nil
            state.users[subject] = user
            lines.append(JournalLine(user: user))
        }
        for var family in state.families.values
        where family.subject == subject && (deviceID == nil || family.deviceID == deviceID) && !family.revoked {
            family.revoked = true
            state.families[family.id] = family
            lines.append(JournalLine(family: family))
        }
        try persist(lines)
    }

    /// The user behind an access token, for every protected route.
    func authenticate(bearer: String?) throws(BackendRefusal) -> Principal {
        guard let bearer else { throw .invalidToken("missing access token (Authorization: Bearer <access_token>)") }
        let claims = try verified(bearer, kind: .access)
        guard now < Double(claims.exp), claims.seq > accessExpiredThrough else { throw .tokenExpired("the access token has expired; refresh it") }
        guard let family = state.families[claims.fam], !family.revoked else { throw .invalidToken("this login has been revoked; log in again") }
        return Principal(subject: claims.sub, deviceID: claims.dev, familyID: family.id)
    }

    private func verified(_ token: String, kind: TokenClaims.Kind) throws(BackendRefusal) -> TokenClaims {
        let claims: TokenClaims
        switch signer.verify(token, as: TokenClaims.self) {
        case .success(let verified): claims = verified
        case .failure(.badSignature): throw .invalidToken("the token's signature is wrong")
        case .failure(.unsupportedAlgorithm): throw .invalidToken("the token is not HS256")
        case .failure: throw .invalidToken("the token is not a token this server issued")
        }
        guard claims.typ == kind else { throw .invalidToken("a \(claims.typ.rawValue) token cannot be used here") }
        return claims
    }

    private func issueTokens(for family: inout TokenFamily) throws(BackendRefusal) -> (access: String, refresh: String) {
        let issued = Int64(now.rounded(.down))
        sequence += 1
        let access = TokenClaims(
            typ: .access, sub: family.subject, dev: family.deviceID, fam: family.id, jti: UUID().uuidString.lowercased(),
            seq: sequence, iat: issued, exp: Int64((now + Double(tokenSettings.accessLifetime)).rounded(.up)))
        sequence += 1
        let refreshID = UUID().uuidString.lowercased()
        let refresh = TokenClaims(
            typ: .refresh, sub: family.subject, dev: family.deviceID, fam: family.id, jti: refreshID, seq: sequence, iat: issued,
            exp: Int64((now + Double(tokenSettings.refreshLifetime)).rounded(.up)))
        family.currentRefreshID = refreshID
        family.refreshSeq = sequence
        do {
            return (try signer.sign(access), try signer.sign(refresh))
        } catch {
            throw .serverError("cannot sign a token: \(error)")
        }
    }

    private static func deviceID(in body: JSONValue) throws(BackendRefusal) -> String {
        guard let deviceID = body["device_id"]?.string, !deviceID.isEmpty, deviceID.count <= 128 else {
            throw .invalidRequest("missing device_id (1 to 128 characters)")
        }
        return deviceID
    }
}

extension UserRecord {
    init(subject: String, provider: String, createdAt: Int64) {
        self.init(subject: subject, provider: provider, email: nil, name: nil, userInfo: nil, createdAt: createdAt, boundDeviceID: nil, statsOverride: nil)
    }

    /// Fills in what the id token and `user_info` tell, keeping what an earlier login told
    /// (Apple sends the name only on the first).
    mutating func adopt(identity: IDToken, userInfo: JSONValue?) {
        if let userInfo, userInfo.isObject, self.userInfo == nil { self.userInfo = userInfo }
        email = email ?? identity.email ?? userInfo?["email"]?.string
        name = name ?? identity.name ?? userInfo.flatMap(Self.name(in:))
    }

    /// `user_info.name` as a string, or Apple's `{firstName, lastName}` joined.
    private static func name(in userInfo: JSONValue) -> String? {
        guard let name = userInfo["name"] else { return nil }
        if let text = name.string { return text }
        let parts = [name["firstName"]?.string, name["lastName"]?.string].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}

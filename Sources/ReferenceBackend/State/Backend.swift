import Clocks
import FoundationEssentials

/// The reference backend's state and rules, without HTTP: the routes call these methods and
/// turn their answers and ``BackendRefusal``s into responses.
///
/// One actor owns everything, so every call sees and leaves a consistent state, and a change
/// is in the state file before its answer leaves.
actor Backend {
    let configuration: BackendConfiguration
    let clock: WallClock
    var state: BackendState
    var signer: JWTSigner
    var tokenSettings: TokenSettings
    var faults: FaultBoard
    var counters = Counters()
    /// Orders issued tokens; `expire_access`/`expire_refresh` expire everything up to a mark.
    var sequence: Int64
    var accessExpiredThrough: Int64 = 0
    var refreshExpiredThrough: Int64 = 0
    private let journal: Journal?

    init(configuration: BackendConfiguration, clock: WallClock) throws(Journal.Failure) {
        self.configuration = configuration
        self.clock = clock
        let fallbackKey = (0..<32).map { _ in UInt8.random(in: .min ... .max) }
        if let path = configuration.statePath {
            state = BackendState(replaying: try Journal.read(path), fallbackKey: fallbackKey, timeZone: configuration.timeZone)
            journal = try Journal(path: path, snapshot: state.snapshot)
        } else {
            state = BackendState(signingKey: fallbackKey, timeZone: configuration.timeZone)
            journal = nil
        }
        signer = JWTSigner(key: state.signingKey)
        tokenSettings = TokenSettings(configuration)
        faults = FaultBoard(rules: configuration.faults)
        sequence = state.families.values.map(\.refreshSeq).max() ?? 0
    }

    /// Seconds since 1970 on the backend's clock: token lifetimes and expiry are checked against it.
    var now: Double { clock.now().unixSeconds }

    /// Writes changes to the state file; without one this does nothing.
    func persist(_ lines: [JournalLine]) throws(BackendRefusal) {
        do {
            try journal?.append(lines)
        } catch {
            throw .serverError(error.description)
        }
    }

    /// Back to a fresh start with the same flags: no users, sessions or logins, the startup
    /// faults with fresh counts, zero counters. The signing key stays.
    func reset() throws(BackendRefusal) {
        state = BackendState(signingKey: state.signingKey, timeZone: configuration.timeZone)
        tokenSettings = TokenSettings(configuration)
        faults = FaultBoard(rules: configuration.faults)
        counters = Counters()
        accessExpiredThrough = 0
        refreshExpiredThrough = 0
        do {
            try journal?.rewrite(state.snapshot)
        } catch {
            throw .serverError(error.description)
        }
    }

    func user(_ subject: String) throws(BackendRefusal) -> UserRecord {
        guard let user = state.users[subject] else { throw .invalidToken("no such user") }
        return user
    }
}

/// Token lifetimes in force; the admin API changes them at run time.
struct TokenSettings: Sendable, Codable {
    var accessLifetime: Int
    var refreshLifetime: Int
    var refreshGrace: Int

    init(_ configuration: BackendConfiguration) {
        accessLifetime = configuration.accessTokenLifetime
        refreshLifetime = configuration.refreshTokenLifetime
        refreshGrace = configuration.refreshGrace
    }

    enum CodingKeys: String, CodingKey {
        case accessLifetime = "access_lifetime"
        case refreshLifetime = "refresh_lifetime"
        case refreshGrace = "refresh_grace"
    }
}

import JSON

/// One line of the state file: the full new value of one thing that changed.
///
/// Replaying the lines in order, last value wins, rebuilds the state; so a line never
/// describes a change relative to an earlier one, and a torn last line loses one change only.
struct JournalLine: Sendable, Codable {
    /// The token-signing key, base64, so tokens survive a restart.
    var signingKey: String?
    var user: UserRecord?
    var family: TokenFamily?
    var session: AcceptedSession?
    var receipt: Receipt?
    var trainings: [JSONValue]?

    /// A duplicate arrival of a stored session.
    struct Receipt: Sendable, Codable {
        let user: String
        let key: String
        let received: Int
    }

    enum CodingKeys: String, CodingKey {
        case user, family, session, receipt, trainings
        case signingKey = "signing_key"
    }

    init(signingKey: String) { self.signingKey = signingKey }
    init(user: UserRecord) { self.user = user }
    init(family: TokenFamily) { self.family = family }
    init(session: AcceptedSession) { self.session = session }
    init(receipt: Receipt) { self.receipt = receipt }
    init(trainings: [JSONValue]) { self.trainings = trainings }
}

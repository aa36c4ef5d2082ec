public import Workout

/// What login and refresh answer (SolidFocus Flow 2 step 2, Flow 8 step 3).
public struct TokenGrant: Sendable, CustomStringConvertible {
    public var accessToken: String
    /// The rolling refresh token; a refresh that returns none keeps the old one.
    public var refreshToken: String?
    /// Seconds the access token lives (`expires_in`).
    public var expiresIn: Int
    /// `user_profile` as JSON, at login.
    public var userProfile: String?

    public var description: String { "grant(expires in \(expiresIn) s)" }
}

/// `POST /sessions/batch_upload`'s answer (SolidFocus's Batch Upload Procedure).
public struct BatchUploadAnswer: Sendable, Hashable {
    public struct Failure: Sendable, Hashable {
        public var sessionID: String
        /// The error code, e.g. `validation_error`.
        public var error: String
        public var message: String?

        /// `validation_error: Invalid duration`.
        public var line: String { message.map { "\(error): \($0)" } ?? error }
    }

    public var successCount: Int
    public var duplicateCount: Int
    public var failures: [Failure]
    public var updatedStats: WorkoutStats?
}

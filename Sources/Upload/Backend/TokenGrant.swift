package import Workout

/// What login and refresh answer (SolidFocus Flow 2 step 2, Flow 8 step 3).
package struct TokenGrant: Sendable, CustomStringConvertible {
    package var accessToken: String
    /// The rolling refresh token; a refresh that returns none keeps the old one.
    package var refreshToken: String?
    /// Seconds the access token lives (`expires_in`).
    package var expiresIn: Int
    /// `user_profile` as JSON, at login.
    package var userProfile: String?

    package var description: String { "grant(expires in \(expiresIn) s)" }
}

/// `POST /sessions/batch_upload`'s answer (SolidFocus's Batch Upload Procedure).
package struct BatchUploadAnswer: Sendable, Hashable {
    package struct Failure: Sendable, Hashable {
        package var sessionID: String
        /// The error code, e.g. `validation_error`.
        package var error: String
        package var message: String?

        /// `validation_error: Invalid duration`.
        package var line: String { message.map { "\(error): \($0)" } ?? error }
    }

    package var successCount: Int
    package var duplicateCount: Int
    package var failures: [Failure]
    package var updatedStats: WorkoutStats?
}

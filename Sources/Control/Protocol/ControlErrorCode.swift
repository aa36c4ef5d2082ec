/// The `code` of a failed answer: a stable snake_case word a program can branch on, beside the
/// `error` text meant for people. The daemon may add codes; clients treat an unknown one as
/// `failed`.
package struct ControlErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    package var rawValue: String

    package init(rawValue: String) {
        self.rawValue = rawValue
    }

    package var description: String { rawValue }

    /// The line is not a request (not JSON, unknown command, missing or wrong field).
    package static let badRequest = ControlErrorCode(rawValue: "bad_request")
    /// The line is longer than the server reads; the connection is closed after this answer.
    package static let lineTooLong = ControlErrorCode(rawValue: "line_too_long")
    /// No machine by that name or address is known to the daemon.
    package static let unknownMachine = ControlErrorCode(rawValue: "unknown_machine")
    /// No training with that id is in the trainings cache, or it cannot be run.
    package static let unknownTraining = ControlErrorCode(rawValue: "unknown_training")
    /// No trainings are cached yet.
    package static let noTrainings = ControlErrorCode(rawValue: "no_trainings")
    /// `stop_training` on a machine that runs none.
    package static let noTraining = ControlErrorCode(rawValue: "no_training")
    /// The machine is known but not connected and ready, or the daemon is still starting.
    package static let notReady = ControlErrorCode(rawValue: "not_ready")
    /// The machine answered the Control Point request with something other than success.
    package static let refused = ControlErrorCode(rawValue: "refused")
    /// The command failed for another reason; the message says which.
    package static let failed = ControlErrorCode(rawValue: "failed")
    /// Something else holds what was asked for, or the socket has all the clients it takes.
    package static let busy = ControlErrorCode(rawValue: "busy")
    /// The client sent nothing for the idle timeout, or the machine did not answer in time.
    package static let timeout = ControlErrorCode(rawValue: "timeout")
    /// `upload` on a daemon with no backend configured.
    package static let noBackend = ControlErrorCode(rawValue: "no_backend")
    /// `handover` on a daemon without the floor (`[fleet]` off).
    package static let noFloor = ControlErrorCode(rawValue: "no_floor")
    /// A fault in the daemon itself; the message says what.
    package static let internalError = ControlErrorCode(rawValue: "internal_error")
}

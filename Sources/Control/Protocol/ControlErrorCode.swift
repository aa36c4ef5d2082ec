/// The `code` of a failed answer: a stable snake_case word a program can branch on, beside the
/// `error` text meant for people. The daemon may add codes; clients treat an unknown one as
/// `failed`.
public struct ControlErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// The line is not a request (not JSON, unknown command, missing or wrong field).
    public static let badRequest = ControlErrorCode(rawValue: "bad_request")
    /// The line is longer than the server reads; the connection is closed after this answer.
    public static let lineTooLong = ControlErrorCode(rawValue: "line_too_long")
    /// No machine by that name or address is known to the daemon.
    public static let unknownMachine = ControlErrorCode(rawValue: "unknown_machine")
    /// No training with that id is in the trainings cache.
    public static let unknownTraining = ControlErrorCode(rawValue: "unknown_training")
    /// The machine is known but not connected and ready, or the daemon is still starting.
    public static let notReady = ControlErrorCode(rawValue: "not_ready")
    /// The machine or the backend answered, and the answer was no (a Control Point result
    /// other than success, an upload that failed).
    public static let failed = ControlErrorCode(rawValue: "failed")
    /// Something else holds what was asked for: a training already runs on the machine, an
    /// upload is already under way, or the socket has all the clients it takes.
    public static let busy = ControlErrorCode(rawValue: "busy")
    /// The machine did not answer in time, or the client sent nothing for the idle timeout.
    public static let timeout = ControlErrorCode(rawValue: "timeout")
    /// The command cannot be done on this machine (a power target on a rower without one).
    public static let unsupported = ControlErrorCode(rawValue: "unsupported")
    /// The gateway is not logged in to the backend.
    public static let notLoggedIn = ControlErrorCode(rawValue: "not_logged_in")
    /// A fault in the daemon itself; the message says what.
    public static let internalError = ControlErrorCode(rawValue: "internal_error")
}

/// The daemon's answer to a control command, before the control socket frames it: a JSON
/// object, or a failure with a stable code and a one-line reason.
package enum ControlOutcome: Sendable, Equatable {
    case ok(json: String)
    case failed(code: String, message: String)
}

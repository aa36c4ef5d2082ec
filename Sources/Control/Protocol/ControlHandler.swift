/// What the control socket runs each request through: the daemon's side of the protocol.
///
/// Calls for one connection come one at a time, in the order the client sent the requests;
/// calls for different connections run concurrently. A call is never cancelled when its
/// client goes away (a Control Point write half done is worse than one nobody hears about);
/// its answer is then dropped.
package protocol ControlHandler: Sendable {
    func handle(_ request: ControlRequest) async -> ControlResponse
}

/// How a device's next Connect() calls go, as the Python fake's `SetConnectBehaviour` sets it,
/// plus a script of one-off failures (`--fault connect-abort=2`) taken first.
struct ConnectPlan: Sendable {
    enum Mode: String, Sendable, CaseIterable {
        /// Connected=true and the reply after `connectDelay`; ServicesResolved `resolveDelay` later.
        case ok
        /// Connected=true, Connected=false, `Failed "le-connection-abort-by-local"`.
        case abort
        /// No reply until Disconnect() or the caller's own timeout.
        case hang
        /// Like ok, but ServicesResolved never comes.
        case noResolve = "no-resolve"
        /// ServicesResolved right after the reply, the GATT objects later (bluez #1489).
        case earlyResolve = "early-resolve"
    }

    var mode: Mode = .ok
    var scripted: [Mode] = []
    var connectDelay: Duration
    var resolveDelay: Duration

    mutating func next() -> Mode {
        scripted.isEmpty ? mode : scripted.removeFirst()
    }
}

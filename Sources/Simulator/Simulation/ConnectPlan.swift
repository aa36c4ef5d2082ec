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
        /// The reply first, Connected=true after it: a client must not judge the link by its
        /// cache the moment the reply arrives.
        case replyFirst = "reply-first"
        /// The reply, and Connected=true never signalled (a GetAll shows it): what real
        /// bluetoothd 5.66 does when the link already existed at the HCI level ("Device …
        /// is already connected"). ServicesResolved is signalled as usual.
        case silent
    }

    var mode: Mode = .ok
    var scripted: [Mode] = []
    var connectDelay: Duration
    var resolveDelay: Duration

    mutating func next() -> Mode {
        scripted.isEmpty ? mode : scripted.removeFirst()
    }
}

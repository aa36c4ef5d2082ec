/// Where one supervised machine's link stands, as the fleet's discovery sees it: one value per
/// machine instead of a set per condition, so no machine can be linked and backing off at once.
///
/// Written as NIO writes its state machines: the supervisor's events are transitions, each a
/// mutating function that returns what the fleet must do about it (``Action``), and the
/// questions discovery asks (``holdsDiscovery``, ``isLinked``, ``isWaiting``) are read off the
/// one value.
enum MachineLinkState: Sendable, Equatable {
    /// No link, and no Connect to a machine just heard in flight: an attempt on a machine that
    /// stayed silent (it will most likely fail, and an idle gateway should not pay a stop and a
    /// start of discovery for each), or the moment between a drop and the next attempt.
    case unlinked
    /// A Connect in flight to a machine just heard (new, woken, or dropped a moment ago):
    /// bluetoothd pauses scanning meanwhile, so the fleet stops its discovery too.
    case connecting
    /// A live link.
    case linked
    /// The supervisor pauses between attempts; an advertisement may cut the pause short.
    /// `woken`: one did, so the next attempt counts as ``connecting``.
    case backingOff(woken: Bool)

    /// What the fleet does after a transition.
    enum Action: Equatable {
        case nothing
        /// The machine linked: its next advertisement, after the next drop, is a wake again
        /// (``AdvertisementLog/forget(_:)``).
        case forgetAdvertisements
        /// Cut the supervisor's pause short (``MachineSupervisor/wake()``).
        case wakeSupervisor
    }

    /// An attempt begins: its first after adoption or a drop, or one an advertisement woke,
    /// is a Connect to a machine just heard.
    mutating func attemptStarted(first: Bool) -> Action {
        let woken = if case .backingOff(woken: true) = self { true } else { false }
        self = first || woken ? .connecting : .unlinked
        return .nothing
    }

    mutating func linkUp() -> Action {
        self = .linked
        return .forgetAdvertisements
    }

    mutating func linkDown() -> Action {
        self = .unlinked
        return .nothing
    }

    /// The attempt failed; the supervisor pauses before the next.
    mutating func retrying() -> Action {
        self = .backingOff(woken: false)
        return .nothing
    }

    /// The machine was heard advertising after a silence: a pause between attempts ends now.
    mutating func wokenByAdvertisement() -> Action {
        guard case .backingOff = self else { return .nothing }
        self = .backingOff(woken: true)
        return .wakeSupervisor
    }

    /// Whether discovery must stay off for this machine: a Connect to it is in flight.
    var holdsDiscovery: Bool { self == .connecting }

    var isLinked: Bool { self == .linked }

    /// Whether its supervisor pauses between attempts: an advertisement may wake it.
    var isWaiting: Bool {
        if case .backingOff = self { true } else { false }
    }
}

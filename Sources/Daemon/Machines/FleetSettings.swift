package import BlueZ
package import RetryTiming

/// Which machines the daemon keeps connected and how it looks for them (config `[machines]`
/// and `[bluetooth]`).
package struct FleetSettings: Sendable {
    /// The D-Bus address of the system bus BlueZ is on.
    package var busAddress: String
    package var filter: MachineFilter
    /// Names or addresses to keep connected; empty means every machine `filter` takes.
    package var allow: [String]
    /// Adapter names (`hci0`) whose machines are taken; empty means all. Kept in `filter`,
    /// so that discovery and every lookup of BlueZ's cache honour it too.
    package var adapters: [String] {
        get { filter.adapters.sorted() }
        set { filter.adapters = Set(newValue) }
    }
    package var maxConnected: Int
    /// Links per adapter (`machines.max_per_adapter`): a controller holds only a few.
    package var maxPerAdapter: Int
    /// While discovery runs (some machine is missing), it is restarted this often: an adapter
    /// that stopped discovering on its own is noticed, and BlueZ, whose RSSI reports are
    /// thresholded, reports every machine it hears afresh. A gym whose machines are all
    /// connected does not discover at all.
    package var discoveryRefresh: Duration
    /// After discovery starts, an adapter that does not say `Discovering` this long later is
    /// asked again, at doubling intervals up to ``discoveryRefresh``: its session may have
    /// dropped without the fleet seeing why (an off and on too quick to notice).
    package var discoveryCheck: Duration
    /// A machine waiting to reconnect that is heard advertising after at least this long
    /// unheard has woken (``AdvertisementLog``): its backoff is cut short.
    package var wakeQuiet: Duration
    /// Between one machine's connection attempts; an advertisement after a silence cuts a
    /// pause short, and discovery (restarted every ``discoveryRefresh``) hears a machine that
    /// wakes, so the cap (5 minutes, where `monitor` waits 30 s) only paces retries on a
    /// machine that stays silent: ten sleeping machines cost an idle gateway well under one
    /// wake-up a second.
    package var reconnectBackoff: Backoff
    package var supervisorTiming: MachineSupervisor.Timing
    /// Between attempts to reach the system bus.
    package var busBackoff: Backoff

    package init(
        busAddress: String, filter: MachineFilter = MachineFilter(), allow: [String] = [], adapters: [String] = [],
        maxConnected: Int = 10, maxPerAdapter: Int = 7, discoveryRefresh: Duration = .seconds(60), discoveryCheck: Duration = .seconds(5),
        wakeQuiet: Duration = .seconds(5),
        reconnectBackoff: Backoff = Backoff(maximum: .seconds(300)), supervisorTiming: MachineSupervisor.Timing = .init(),
        busBackoff: Backoff = Backoff()
    ) {
        self.busAddress = busAddress
        self.filter = filter
        self.allow = allow
        self.filter.adapters = Set(adapters)
        self.maxConnected = maxConnected
        self.maxPerAdapter = maxPerAdapter
        self.discoveryRefresh = discoveryRefresh
        self.discoveryCheck = discoveryCheck
        self.wakeQuiet = wakeQuiet
        self.reconnectBackoff = reconnectBackoff
        self.supervisorTiming = supervisorTiming
        self.busBackoff = busBackoff
    }
}

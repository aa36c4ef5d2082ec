public import BlueZ

/// Which machines the daemon keeps connected and how it looks for them (config `[machines]`
/// and `[bluetooth]`).
public struct FleetSettings: Sendable {
    /// The D-Bus address of the system bus BlueZ is on.
    public var busAddress: String
    public var filter: MachineFilter
    /// Names or addresses to keep connected; empty means every machine `filter` takes.
    public var allow: [String]
    /// Adapter names (`hci0`) whose machines are taken; empty means all. Kept in `filter`,
    /// so that discovery and every lookup of BlueZ's cache honour it too.
    public var adapters: [String] {
        get { filter.adapters.sorted() }
        set { filter.adapters = Set(newValue) }
    }
    public var maxConnected: Int
    /// Links per adapter (`machines.max_per_adapter`): a controller holds only a few.
    public var maxPerAdapter: Int
    /// How long each search for new machines keeps discovery on.
    public var discoveryWindow: Duration
    /// The pause after a search that found nothing new; it doubles up to `discoveryPauseLimit`
    /// so a gym whose machines are all connected is not scanned for ever.
    public var discoveryPause: Duration
    public var discoveryPauseLimit: Duration
    public var supervisorTiming: MachineSupervisor.Timing
    /// Between attempts to reach the system bus.
    public var busBackoff: Backoff

    public init(
        busAddress: String, filter: MachineFilter = MachineFilter(), allow: [String] = [], adapters: [String] = [],
        maxConnected: Int = 10, maxPerAdapter: Int = 7, discoveryWindow: Duration = .seconds(10), discoveryPause: Duration = .seconds(20),
        discoveryPauseLimit: Duration = .seconds(300), supervisorTiming: MachineSupervisor.Timing = .init(),
        busBackoff: Backoff = Backoff()
    ) {
        self.busAddress = busAddress
        self.filter = filter
        self.allow = allow
        self.filter.adapters = Set(adapters)
        self.maxConnected = maxConnected
        self.maxPerAdapter = maxPerAdapter
        self.discoveryWindow = discoveryWindow
        self.discoveryPause = discoveryPause
        self.discoveryPauseLimit = discoveryPauseLimit
        self.supervisorTiming = supervisorTiming
        self.busBackoff = busBackoff
    }

    /// Whether a discovered machine sits on an adapter the gateway may use.
    public func allows(adapter path: String) -> Bool {
        filter.allows(adapter: path)
    }
}

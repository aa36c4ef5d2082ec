public import Workout

/// Everything `ftms-bridge run` reads from `/etc/ftms-bridge/config.toml` (contract §10).
///
/// Every key has a default, so an empty file (or none) is a working gateway: a missing key
/// means "the default", never "off". The TOML names are snake_case and grouped in tables;
/// `docs/configuration.md` and `systemd/config.example.toml` document each one.
public struct DaemonConfig: Sendable, Equatable {
    public var machines = Machines()
    public var sessions = Sessions()
    public var backend = Backend()
    public var state = State()
    public var metricsSocket = SocketSettings(path: "/run/ftms-bridge/metrics.sock", mode: 0o660)
    public var controlSocket = SocketSettings(path: "/run/ftms-bridge/control.sock", mode: 0o600)
    public var prometheus = Prometheus()
    public var log = Log()
    public var bluetooth = Bluetooth()
    public var mqtt = MQTT()

    /// The keys the file set (`"state.directory"`, `"metrics_socket.path"`…), whatever their
    /// value: a key set to its default is still the operator's choice, so systemd's
    /// directories (``applyingEnvironment(_:)``) replace only the keys the file left out.
    /// Provenance, not configuration: ``==`` ignores it.
    public var explicitKeys: Set<String> = []

    public init() {}

    /// Two configs that run the gateway the same way are equal, however they were written.
    public static func == (lhs: DaemonConfig, rhs: DaemonConfig) -> Bool {
        lhs.machines == rhs.machines && lhs.sessions == rhs.sessions && lhs.backend == rhs.backend
            && lhs.state == rhs.state && lhs.metricsSocket == rhs.metricsSocket && lhs.controlSocket == rhs.controlSocket
            && lhs.prometheus == rhs.prometheus && lhs.log == rhs.log && lhs.bluetooth == rhs.bluetooth
            && lhs.mqtt == rhs.mqtt
    }

    /// `[machines]`: which machines the gateway keeps connected.
    public struct Machines: Sendable, Equatable {
        /// Names or addresses (`SF-Bike-0001`, `C0:11:22:33:44:55`). Empty: every SolidFocus
        /// machine in range.
        public var allow: [String] = []
        /// Adapters to use (`hci0`). Empty: every powered adapter.
        public var adapters: [String] = []
        /// Also take machines that advertise only the generic FTMS service (0x1826).
        public var acceptGenericFTMS = false
        /// At most this many machines connected at once (a controller holds a limited number of LE links).
        public var maxConnected = 10
        /// At most this many links through one adapter; more machines spread over more adapters.
        public var maxPerAdapter = 7
        public init() {}
    }

    /// `[sessions]`: contract §5's thresholds and the calendar of the workout streak.
    public struct Sessions: Sendable, Equatable {
        public var rules = SessionRules()
        /// IANA zone for the streak's calendar days; empty means the system's.
        public var timeZone = ""
        public init() {}
    }

    /// `[backend]`: the SolidFocus backend.
    public struct Backend: Sendable, Equatable {
        /// Base URL; empty means no backend (sessions queue until one is configured).
        public var url = ""
        /// The identity provider `login` uses (`google` or `apple`).
        public var provider = "google"
        /// Seconds each backend call may take.
        public var timeout: Duration = .seconds(10)
        /// Seconds between upload checks when nothing is due.
        public var uploadInterval: Duration = .seconds(900)
        /// Seconds the cached trainings stay fresh.
        public var trainingsTTL = 86_400
        public init() {}
    }

    /// `[state]`: where the database lives.
    public struct State: Sendable, Equatable {
        /// The state directory; `$STATE_DIRECTORY` (systemd) when set overrides the default.
        public var directory = "/var/lib/ftms-bridge"
        public init() {}
    }

    /// `[metrics_socket]` and `[control_socket]`.
    public struct SocketSettings: Sendable, Equatable {
        public var path: String
        /// Group owning the socket; empty means the daemon's own group.
        public var group = ""
        /// File mode of the socket.
        public var mode: UInt32
        /// Readers at once (metrics) or clients at once (control).
        public var maxClients = 64
        public init(path: String, group: String = "", mode: UInt32, maxClients: Int = 64) {
            self.path = path
            self.group = group
            self.mode = mode
            self.maxClients = maxClients
        }
    }

    /// `[prometheus]`: the loopback scrape endpoint.
    public struct Prometheus: Sendable, Equatable {
        public var enabled = true
        /// `host:port`; only loopback addresses are accepted.
        public var listen = "127.0.0.1:9464"
        public init() {}
    }

    /// `[log]`.
    public struct Log: Sendable, Equatable {
        /// `trace`, `debug`, `info`, `notice`, `warning`, `error` or `critical`.
        public var level = "info"
        public init() {}
    }

    /// `[bluetooth]`: the bus BlueZ is on.
    public struct Bluetooth: Sendable, Equatable {
        /// D-Bus address of the system bus; empty means `$DBUS_SYSTEM_BUS_ADDRESS`, else the standard one.
        public var busAddress = ""
        public init() {}
    }
}

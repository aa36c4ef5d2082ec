package import Workout

/// Everything the daemon (`ftms-bridged`) reads from `/etc/ftms-bridge/config.toml` (contract §10).
///
/// Every key has a default, so an empty file (or none) is a working gateway: a missing key
/// means "the default", never "off". The TOML names are snake_case and grouped in tables;
/// `docs/configuration.md` and `systemd/config.example.toml` document each one.
package struct DaemonConfig: Sendable, Equatable {
    package var machines = Machines()
    package var sessions = Sessions()
    package var backend = Backend()
    package var state = State()
    package var metricsSocket = SocketSettings(path: GatewayPaths.defaultMetricsSocket, mode: 0o660)
    package var controlSocket = SocketSettings(path: GatewayPaths.defaultControlSocket, mode: 0o600)
    package var prometheus = Prometheus()
    package var log = Log()
    package var bluetooth = Bluetooth()
    package var mqtt = MQTT()
    package var fleet = Fleet()

    /// The keys the file set (`"state.directory"`, `"metrics_socket.path"`…), whatever their
    /// value: a key set to its default is still the operator's choice, so systemd's
    /// directories (``resolvingPaths(_:environment:)``) replace only the keys the file left out.
    /// Provenance, not configuration: ``==`` ignores it.
    package var explicitKeys: Set<String> = []

    package init() {}

    /// Two configs that run the gateway the same way are equal, however they were written.
    package static func == (lhs: DaemonConfig, rhs: DaemonConfig) -> Bool {
        lhs.machines == rhs.machines && lhs.sessions == rhs.sessions && lhs.backend == rhs.backend
            && lhs.state == rhs.state && lhs.metricsSocket == rhs.metricsSocket && lhs.controlSocket == rhs.controlSocket
            && lhs.prometheus == rhs.prometheus && lhs.log == rhs.log && lhs.bluetooth == rhs.bluetooth
            && lhs.mqtt == rhs.mqtt && lhs.fleet == rhs.fleet
    }

    /// `[machines]`: which machines the gateway keeps connected.
    package struct Machines: Sendable, Equatable {
        /// Names or addresses (`SF-Bike-0001`, `C0:11:22:33:44:55`). Empty: every SolidFocus
        /// machine in range.
        package var allow: [String] = []
        /// Adapters to use (`hci0`). Empty: every powered adapter.
        package var adapters: [String] = []
        /// Also take machines that advertise only the generic FTMS service (0x1826).
        package var acceptGenericFTMS = false
        /// At most this many machines connected at once (a controller holds a limited number of LE links).
        package var maxConnected = 10
        /// At most this many links through one adapter; more machines spread over more adapters.
        package var maxPerAdapter = 7
        package init() {}
    }

    /// `[sessions]`: contract §5's thresholds and the calendar of the workout streak.
    package struct Sessions: Sendable, Equatable {
        package var rules = SessionRules()
        /// IANA zone for the streak's calendar days; empty means the system's.
        package var timeZone = ""
        package init() {}
    }

    /// `[backend]`: the SolidFocus backend.
    package struct Backend: Sendable, Equatable {
        /// Base URL; empty means no backend (sessions queue until one is configured).
        package var url = ""
        /// The identity provider `login` uses (`google` or `apple`).
        package var provider = "google"
        /// Seconds each backend call may take.
        package var timeout: Duration = .seconds(10)
        /// Seconds between upload checks when nothing is due.
        package var uploadInterval: Duration = .seconds(900)
        /// Seconds the cached trainings stay fresh.
        package var trainingsTTL = 86_400
        /// Seconds after boot that finished sessions wait for a synchronised wall clock before
        /// they are uploaded with the dates an unsynchronised one gives (contract §5).
        package var clockSyncWait = 300
        package init() {}
    }

    /// `[state]`: where the database lives, and when to warn that its disk fills up.
    package struct State: Sendable, Equatable {
        /// The state directory; where the file leaves it out, ``GatewayPaths`` resolves it.
        package var directory = GatewayPaths.defaultStateDirectory
        /// MiB of free space on the state directory's file system under which the daemon warns
        /// (status, STATUS=, journal, MQTT); 0: never.
        package var lowSpaceWarningMiB = 100
        package init() {}
    }

    /// `[metrics_socket]` and `[control_socket]`.
    package struct SocketSettings: Sendable, Equatable {
        package var path: String
        /// Group owning the socket; empty means the daemon's own group.
        package var group = ""
        /// File mode of the socket.
        package var mode: UInt32
        /// Readers at once (metrics) or clients at once (control).
        package var maxClients = 64
        package init(path: String, group: String = "", mode: UInt32, maxClients: Int = 64) {
            self.path = path
            self.group = group
            self.mode = mode
            self.maxClients = maxClients
        }
    }

    /// `[prometheus]`: the loopback scrape endpoint.
    package struct Prometheus: Sendable, Equatable {
        package var enabled = true
        /// `host:port`; only loopback addresses are accepted.
        package var listen = "127.0.0.1:9464"
        package init() {}
    }

    /// `[log]`.
    package struct Log: Sendable, Equatable {
        /// `trace`, `debug`, `info`, `notice`, `warning`, `error` or `critical`.
        package var level = "info"
        package init() {}
    }

    /// `[bluetooth]`: the bus BlueZ is on.
    package struct Bluetooth: Sendable, Equatable {
        /// D-Bus address of the system bus; empty means `$DBUS_SYSTEM_BUS_ADDRESS`, else the standard one.
        package var busAddress = ""
        package init() {}
    }
}

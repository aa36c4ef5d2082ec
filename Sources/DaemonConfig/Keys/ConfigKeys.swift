/// Every key of `config.toml`, in the order the file, the example and the docs list them.
enum ConfigKeys {
    static let tables = ["machines", "sessions", "backend", "state", "metrics_socket", "control_socket", "prometheus", "log", "bluetooth", "mqtt", "fleet"]
    /// Tables the daemon once read and what replaced each: a config that still has one is
    /// refused with this line rather than "unknown table", so the operator learns where it went.
    static let retired: [String: String] = [
        "dashboard": "the daemon no longer serves the dashboard: it is its own process, `ftms-bridge dashboard` "
            + "(unit ftms-bridge-dashboard.service, flags --listen, --token-file, --title, --gateway); delete [dashboard] here",
    ]

    static let all: [ConfigKey] = machines + sessions + backend + state + sockets + prometheus + log + bluetooth + mqtt + fleet

    static func named(_ path: String) -> ConfigKey? { all.first { $0.path == path } }

    private static let machines: [ConfigKey] = [
        ConfigKey(
            "machines", "allow", "array of strings",
            "Names or addresses of the machines to keep connected (SF-Bike-0001, C0:11:22:33:44:55); empty: every SolidFocus machine in range.",
            \.machines.allow, read: { v throws(ValueProblem) in try v.strings(StringRules.machine) }, render: TOMLLiteral.strings),
        ConfigKey(
            "machines", "adapters", "array of strings", "Bluetooth adapters to use (hci0); empty: every powered adapter.",
            \.machines.adapters, read: { v throws(ValueProblem) in try v.strings(StringRules.adapter) }, render: TOMLLiteral.strings),
        ConfigKey(
            "machines", "accept_generic_ftms", "boolean",
            "Also take machines that advertise only the generic Fitness Machine Service (0x1826), not SolidFocus's 0xFE01.",
            \.machines.acceptGenericFTMS, read: { v throws(ValueProblem) in try v.boolean() }, render: { String($0) }),
        ConfigKey(
            "machines", "max_connected", "integer", "At most this many machines connected at once (1 to 64): a controller holds few LE links.",
            \.machines.maxConnected, read: { v throws(ValueProblem) in try v.integer(in: 1...64) }, render: { String($0) }),
        ConfigKey(
            "machines", "max_per_adapter", "integer",
            "At most this many links through one Bluetooth adapter (1 to 64; CSR controllers hold 5, Broadcom 7): machines go to the least-loaded adapter that hears them, and wait when every one is full.",
            \.machines.maxPerAdapter, read: { v throws(ValueProblem) in try v.integer(in: 1...64) }, render: { String($0) }),
    ]

    private static let sessions: [ConfigKey] = [
        seconds("pause_after_idle", "No movement this long pauses an active session.", \.sessions.rules.pauseAfterIdle),
        seconds("end_after_idle", "No movement this long ends a session.", \.sessions.rules.endAfterIdle),
        seconds("disconnect_grace", "A link down this long ends the session; a reconnect within it continues the session.", \.sessions.rules.disconnectGrace),
        seconds("minimum_movement", "Sessions with less movement than this are dropped, not uploaded.", \.sessions.rules.minimumMovement),
        seconds("sample_hold_cap", "A sample counts as effort for at most this long, so a Bluetooth dropout is not counted as riding.", \.sessions.rules.sampleHoldCap),
        ConfigKey(
            "sessions", "efficiency", "number", "Gross mechanical efficiency for energy from power (0 to 1): kcal = work / 4184 / efficiency.",
            \.sessions.rules.efficiency, read: { v throws(ValueProblem) in try v.fraction(upTo: 1) }, render: TOMLLiteral.float),
        seconds("checkpoint_interval", "How often an open session is checkpointed against a crash or power loss.", \.sessions.rules.checkpointInterval),
        ConfigKey(
            "sessions", "time_zone", "string", "IANA time zone of the workout streak's calendar days (Europe/Berlin); empty: the system's.",
            \.sessions.timeZone, read: { v throws(ValueProblem) in try checked(v, StringRules.timeZone) }, render: TOMLLiteral.string),
    ]

    private static let backend: [ConfigKey] = [
        ConfigKey(
            "backend", "url", "string", "Base URL of the SolidFocus backend (http or https); empty: no backend, sessions wait in the queue.",
            \.backend.url, read: { v throws(ValueProblem) in try checked(v, StringRules.backendURL) }, render: TOMLLiteral.string),
        ConfigKey(
            "backend", "provider", "string", "Identity provider that `ftms-bridge login` signs in with (google, apple).",
            \.backend.provider, read: { v throws(ValueProblem) in try checked(v, StringRules.provider) }, render: TOMLLiteral.string),
        ConfigKey(
            "backend", "timeout", "seconds", "How long one backend call may take.",
            \.backend.timeout, read: { v throws(ValueProblem) in try v.seconds() }, render: TOMLLiteral.seconds),
        ConfigKey(
            "backend", "upload_interval", "seconds", "How often the queue is checked for uploads when nothing else is due.",
            \.backend.uploadInterval, read: { v throws(ValueProblem) in try v.seconds() }, render: TOMLLiteral.seconds),
        ConfigKey(
            "backend", "trainings_ttl", "integer seconds", "How long the cached trainings stay fresh before they are fetched again.",
            \.backend.trainingsTTL, read: { v throws(ValueProblem) in try v.integer(in: 1...ConfigValue.maximumSeconds) }, render: { String($0) }),
        ConfigKey(
            "backend", "clock_sync_wait", "integer seconds",
            "How long after boot finished sessions wait for true time (a synchronised or stepped clock, or the `Date` of a backend over TLS or on loopback; contract §5) (0 to 86400); after that they are uploaded with the dates the unsynchronised clock gives, marked as such, if it reads after this build's date (a clock at 2000 dates nothing: its sessions wait on for true time).",
            \.backend.clockSyncWait, read: { v throws(ValueProblem) in try v.integer(in: 0...86_400) }, render: { String($0) }),
    ]

    private static let state: [ConfigKey] = [
        ConfigKey(
            "state", "directory", "path", "Where the database lives; when the file leaves it out, systemd's $\(GatewayPaths.stateDirectoryVariable) replaces the default.",
            \.state.directory, read: { v throws(ValueProblem) in try checked(v, StringRules.absolutePath) }, render: TOMLLiteral.string),
        ConfigKey(
            "state", "low_space_warning_mib", "integer",
            "Warn (status, STATUS=, the journal, MQTT) when the state directory's file system has less than this many MiB free; 0: never.",
            \.state.lowSpaceWarningMiB, read: { v throws(ValueProblem) in try v.integer(in: 0...1_048_576) }, render: { String($0) }),
    ]

    private static let sockets: [ConfigKey] =
        socket("metrics_socket", GatewayPaths.metricsSocketName, \.metricsSocket, who: "readers", ownerOnly: false)
        + socket("control_socket", GatewayPaths.controlSocketName, \.controlSocket, who: "clients", ownerOnly: true)

    private static let prometheus: [ConfigKey] = [
        ConfigKey(
            "prometheus", "enabled", "boolean", "Serve Prometheus metrics at http://LISTEN/metrics.",
            \.prometheus.enabled, read: { v throws(ValueProblem) in try v.boolean() }, render: { String($0) }),
        ConfigKey(
            "prometheus", "listen", "string", "host:port of the scrape endpoint; loopback only (127.0.0.0/8, [::1], localhost).",
            \.prometheus.listen, read: { v throws(ValueProblem) in try checked(v, StringRules.listenAddress) }, render: TOMLLiteral.string),
    ]

    private static let log: [ConfigKey] = [
        ConfigKey(
            "log", "level", "string", "Least severe level logged to stderr (the journal): trace, debug, info, notice, warning, error, critical.",
            \.log.level, read: { v throws(ValueProblem) in try checked(v, StringRules.logLevel) }, render: TOMLLiteral.string),
    ]

    private static let bluetooth: [ConfigKey] = [
        ConfigKey(
            "bluetooth", "bus_address", "string", "D-Bus address of the bus BlueZ is on; empty: $DBUS_SYSTEM_BUS_ADDRESS, else the system bus.",
            \.bluetooth.busAddress, read: { v throws(ValueProblem) in try checked(v, StringRules.busAddress) }, render: TOMLLiteral.string),
    ]

    private static let mqtt: [ConfigKey] = [
        ConfigKey(
            "mqtt", "enabled", "boolean", "Publish live data and machine state on an MQTT broker (docs/mqtt.md).",
            \.mqtt.enabled, read: { v throws(ValueProblem) in try v.boolean() }, render: { String($0) }),
        ConfigKey(
            "mqtt", "broker", "string", "mqtt://host[:port] (1883) or mqtts://host[:port] (8883, TLS) of the broker.",
            \.mqtt.broker, read: { v throws(ValueProblem) in try checked(v, StringRules.brokerURL) }, render: TOMLLiteral.string),
        ConfigKey(
            "mqtt", "client_id", "string", "MQTT client id, unique per broker; empty: ftms-bridge- and the gateway's device id.",
            \.mqtt.clientID, read: { v throws(ValueProblem) in try checked(v, StringRules.mqttClientID) }, render: TOMLLiteral.string),
        ConfigKey(
            "mqtt", "topic_prefix", "string", "First topic level of everything published (no + # or empty levels).",
            \.mqtt.topicPrefix, read: { v throws(ValueProblem) in try checked(v, StringRules.topicPrefix) }, render: TOMLLiteral.string),
        ConfigKey(
            "mqtt", "gateway", "string", "This gateway's topic level (letters, digits, - _ .); empty: the host name.",
            \.mqtt.gateway, read: { v throws(ValueProblem) in try checked(v, StringRules.topicLevel) }, render: TOMLLiteral.string),
        ConfigKey(
            "mqtt", "username", "string", "Login name on the broker; empty: no login.",
            \.mqtt.username, read: { v throws(ValueProblem) in try checked(v, StringRules.mqttClientID) }, render: TOMLLiteral.string),
        ConfigKey(
            "mqtt", "password_file", "path", "File whose first line is the password; must be mode 0600 or stricter. Never put it in this file.",
            \.mqtt.passwordFile, read: { v throws(ValueProblem) in try checked(v, optionalPath) }, render: TOMLLiteral.string),
        ConfigKey(
            "mqtt", "ca_file", "path", "PEM file of the CA that signed the broker's certificate (mqtts); empty: the system's trust store.",
            \.mqtt.caFile, read: { v throws(ValueProblem) in try checked(v, optionalPath) }, render: TOMLLiteral.string),
        ConfigKey(
            "mqtt", "keepalive", "integer seconds", "MQTT keepalive (5 to 3600): a vanished gateway shows offline within 1.5 times this.",
            \.mqtt.keepalive, read: { v throws(ValueProblem) in try v.integer(in: 5...3600) }, render: { String($0) }),
        ConfigKey(
            "mqtt", "sample_rate", "number", "Most sample messages per machine per second (0.1 to 20); the latest sample wins.",
            \.mqtt.sampleRate, read: { v throws(ValueProblem) in try v.number(in: 0.1...20) }, render: TOMLLiteral.float),
        ConfigKey(
            "mqtt", "publish", "array of strings", "Topics to publish besides status: state, sample, session, upload.",
            \.mqtt.publish, read: { v throws(ValueProblem) in try v.strings(StringRules.mqttTopicKind) }, render: TOMLLiteral.strings),
        ConfigKey(
            "mqtt", "home_assistant", "boolean", "Announce each machine to Home Assistant (MQTT discovery, retained).",
            \.mqtt.homeAssistant, read: { v throws(ValueProblem) in try v.boolean() }, render: { String($0) }),
        ConfigKey(
            "mqtt", "discovery_prefix", "string", "Home Assistant's discovery prefix.",
            \.mqtt.discoveryPrefix, read: { v throws(ValueProblem) in try checked(v, StringRules.topicPrefix) }, render: TOMLLiteral.string),
        ConfigKey(
            "mqtt", "queue_capacity", "integer", "Most messages waiting for the broker (10 to 100000); samples are dropped first.",
            \.mqtt.queueCapacity, read: { v throws(ValueProblem) in try v.integer(in: 10...100_000) }, render: { String($0) }),
    ]

    private static let fleet: [ConfigKey] = [
        ConfigKey(
            "fleet", "enabled", "boolean",
            "Share the floor with the gym's other gateways through the [mqtt] broker (which must be on): one holder per machine, sessions carried over (docs/mqtt.md).",
            \.fleet.enabled, read: { v throws(ValueProblem) in try v.boolean() }, render: { String($0) }),
        ConfigKey(
            "fleet", "gateway", "string", "This gateway's name on the floor (letters, digits, - _ .); empty: [mqtt] gateway, itself the host name when empty.",
            \.fleet.gateway, read: { v throws(ValueProblem) in try checked(v, StringRules.topicLevel) }, render: TOMLLiteral.string),
        floorSeconds("heartbeat", "How often this gateway's presence is published; also at once on a change.", \.fleet.heartbeat),
        floorSeconds("lease", "A gateway not heard from this long (on the receiver's clock) is gone, and so are its claims; more than heartbeat.", \.fleet.lease),
        ConfigKey(
            "fleet", "rssi_margin", "integer",
            "dB (0 to 100) by which another gateway must hear a machine better before the machine's home moves to it: hysteresis against flapping.",
            \.fleet.rssiMargin, read: { v throws(ValueProblem) in try v.integer(in: 0...100) }, render: { String($0) }),
        floorSeconds("heard_window", "A machine counts as heard by this gateway while its last advertisement is this recent.", \.fleet.heardWindow),
        floorSeconds(
            "hold_unconfirmed",
            "After a restart, open checkpoints wait this long for the broker to say whether a neighbour adopted them before they are restored as usual.",
            \.fleet.holdUnconfirmed),
        ConfigKey(
            "fleet", "handover_on_stop", "boolean", "On stop (systemctl stop or restart), hand each held machine to a neighbour first, as ftms-bridge handover does.",
            \.fleet.handoverOnStop, read: { v throws(ValueProblem) in try v.boolean() }, render: { String($0) }),
    ]

    private static func optionalPath(_ text: String) throws(ValueProblem) {
        guard !text.isEmpty else { return }
        try StringRules.absolutePath(text)
    }

    private static func seconds(_ name: String, _ summary: String, _ field: any WritableKeyPath<DaemonConfig, Duration> & Sendable) -> ConfigKey {
        ConfigKey("sessions", name, "seconds", summary, field, read: { v throws(ValueProblem) in try v.seconds() }, render: TOMLLiteral.seconds)
    }

    private static func floorSeconds(_ name: String, _ summary: String, _ field: any WritableKeyPath<DaemonConfig, Duration> & Sendable) -> ConfigKey {
        ConfigKey("fleet", name, "seconds", summary, field, read: { v throws(ValueProblem) in try v.seconds() }, render: TOMLLiteral.seconds)
    }

    private static func checked(_ value: ConfigValue, _ rule: (String) throws(ValueProblem) -> Void) throws(ValueProblem) -> String {
        let text = try value.string()
        try rule(text)
        return text
    }

    private static func socket(
        _ table: String, _ file: String, _ field: any WritableKeyPath<DaemonConfig, DaemonConfig.SocketSettings> & Sendable,
        who: String, ownerOnly: Bool
    ) -> [ConfigKey] {
        let place = ownerOnly ? "Control socket (owner only)" : "Metrics socket"
        return [
            ConfigKey(
                table, "path", "path", "\(place) path; when the file leaves it out, systemd's $\(GatewayPaths.runtimeDirectoryVariable)/\(file) replaces the default.",
                field, \.path, read: { v throws(ValueProblem) in try checked(v, StringRules.socketPath) }, render: TOMLLiteral.string),
            ConfigKey(
                table, "group", "string",
                ownerOnly ? "Must stay empty: the control socket is owner-only." : "Group that owns the socket, so its members may read; empty: the daemon's group.",
                field, \.group, read: { v throws(ValueProblem) in try ownerOnly ? noGroup(v) : checked(v, StringRules.groupName) },
                render: TOMLLiteral.string),
            ConfigKey(
                table, "mode", "mode",
                ownerOnly ? "File mode: \"0600\"; group or other bits are refused." : "File mode, as \"0660\" or 0o660.",
                field, \.mode, read: { v throws(ValueProblem) in ownerOnly ? try ownerOnlyMode(v) : try v.fileMode() },
                render: TOMLLiteral.mode),
            ConfigKey(
                table, "max_clients", "integer", "Most \(who) connected at once (1 to 4096).",
                field, \.maxClients, read: { v throws(ValueProblem) in try v.integer(in: 1...4096) }, render: { String($0) }),
        ]
    }

    /// The control socket changes machines and starts uploads: nobody but the daemon's user.
    private static func ownerOnlyMode(_ value: ConfigValue) throws(ValueProblem) -> UInt32 {
        let mode = try value.fileMode()
        guard mode & 0o077 == 0 else {
            throw .invalid("must be owner-only (\"0600\"): the control socket changes machines, got \(FileMode.octal(mode))")
        }
        return mode
    }

    private static func noGroup(_ value: ConfigValue) throws(ValueProblem) -> String {
        let group = try value.string()
        guard group.isEmpty else {
            throw .invalid("must be empty: the control socket is owner-only, so a group could not use it, got \(OneLine.quoted(group))")
        }
        return group
    }
}

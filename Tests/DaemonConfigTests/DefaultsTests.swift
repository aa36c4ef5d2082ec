import DaemonConfig
import Testing
import Workout

/// contract §10: every key has a default, so an empty file (or none) is a working gateway.
@Suite("Config defaults")
struct DefaultsTests {
    @Test func anEmptyFileIsTheDefaults() throws {
        for text in ["", "\n\n", "# only a comment\n", "[machines]\n[sessions]\n"] {
            let config = try DaemonConfig.parse(text)
            #expect(config == DaemonConfig())
            #expect(config.explicitKeys.isEmpty)
        }
    }

    /// Known answers: the documented defaults, as the docs state them.
    @Test func theDocumentedDefaults() {
        let expected: [String: String] = [
            "machines.allow": "[]", "machines.adapters": "[]", "machines.accept_generic_ftms": "false",
            "machines.max_connected": "10", "machines.max_per_adapter": "7",
            "sessions.pause_after_idle": "6", "sessions.end_after_idle": "120", "sessions.disconnect_grace": "60",
            "sessions.minimum_movement": "60", "sessions.sample_hold_cap": "3", "sessions.efficiency": "0.25",
            "sessions.checkpoint_interval": "5", "sessions.time_zone": "\"\"",
            "backend.url": "\"\"", "backend.provider": "\"google\"", "backend.timeout": "10", "backend.upload_interval": "900",
            "backend.trainings_ttl": "86400", "backend.clock_sync_wait": "300",
            "state.directory": "\"/var/lib/ftms-bridge\"",
            "state.low_space_warning_mib": "100",
            "metrics_socket.path": "\"/run/ftms-bridge/metrics.sock\"", "metrics_socket.group": "\"\"",
            "metrics_socket.mode": "\"0660\"", "metrics_socket.max_clients": "64",
            "control_socket.path": "\"/run/ftms-bridge/control.sock\"", "control_socket.group": "\"\"",
            "control_socket.mode": "\"0600\"", "control_socket.max_clients": "64",
            "prometheus.enabled": "true", "prometheus.listen": "\"127.0.0.1:9464\"",
            "log.level": "\"info\"", "bluetooth.bus_address": "\"\"",
            "mqtt.enabled": "false", "mqtt.broker": "\"mqtt://127.0.0.1:1883\"", "mqtt.client_id": "\"\"",
            "mqtt.topic_prefix": "\"ftms-bridge\"", "mqtt.gateway": "\"\"", "mqtt.username": "\"\"",
            "mqtt.password_file": "\"\"", "mqtt.ca_file": "\"\"", "mqtt.keepalive": "30", "mqtt.sample_rate": "1.0",
            "mqtt.publish": #"["state", "sample", "session", "upload"]"#, "mqtt.home_assistant": "true",
            "mqtt.discovery_prefix": "\"homeassistant\"", "mqtt.queue_capacity": "1000",
            "fleet.enabled": "false", "fleet.gateway": "\"\"", "fleet.heartbeat": "3", "fleet.lease": "10",
            "fleet.rssi_margin": "10", "fleet.heard_window": "15", "fleet.hold_unconfirmed": "120",
            "fleet.handover_on_stop": "false",
        ]
        let documented = DaemonConfig.documentedKeys
        #expect(Set(documented.map(\.key)) == Set(expected.keys))
        #expect(documented.count == expected.count, "a key listed twice")
        for key in documented {
            #expect(key.defaultValue == expected[key.key], "\(key.key)")
            #expect(!key.summary.isEmpty && !key.summary.contains("\n"), "\(key.key)")
        }
    }

    /// The session keys are `Workout.SessionRules`' own defaults, not a second copy of them.
    @Test func sessionDefaultsAreTheEngines() {
        #expect(DaemonConfig().sessions.rules == SessionRules())
    }

    @Test func aMissingFileIsTheDefaultsOnlyWhenAsked() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/config.toml"
            let config = try DaemonConfig.load(path: path, missingIsDefault: true)
            #expect(config == DaemonConfig())
            #expect(throws: ConfigError(.unreadable, source: path, problem: "does not exist")) {
                try DaemonConfig.load(path: path)
            }
        }
    }
}

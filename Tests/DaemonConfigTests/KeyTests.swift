import DaemonConfig
import Testing

/// Each key, set to something other than its default, lands in its own field and nowhere else.
@Suite("Config keys")
struct KeyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var key: String
        var literal: String
        var check: @Sendable (DaemonConfig) -> Bool
        var testDescription: String { "\(key) = \(literal)" }
        init(_ key: String, _ literal: String, _ check: @escaping @Sendable (DaemonConfig) -> Bool) {
            self.key = key
            self.literal = literal
            self.check = check
        }
    }

    static let cases: [Case] = [
        Case("machines.allow", #"["SF-Bike-0001", "C0:11:22:33:44:55"]"#) { $0.machines.allow == ["SF-Bike-0001", "C0:11:22:33:44:55"] },
        Case("machines.adapters", #"["hci1", "hci0"]"#) { $0.machines.adapters == ["hci1", "hci0"] },
        Case("machines.accept_generic_ftms", "true") { $0.machines.acceptGenericFTMS },
        Case("machines.max_connected", "3") { $0.machines.maxConnected == 3 },
        Case("machines.max_per_adapter", "4") { $0.machines.maxPerAdapter == 4 },
        Case("sessions.pause_after_idle", "4.5") { $0.sessions.rules.pauseAfterIdle == .milliseconds(4500) },
        Case("sessions.end_after_idle", "300") { $0.sessions.rules.endAfterIdle == .seconds(300) },
        Case("sessions.disconnect_grace", "0.25") { $0.sessions.rules.disconnectGrace == .milliseconds(250) },
        Case("sessions.minimum_movement", "90") { $0.sessions.rules.minimumMovement == .seconds(90) },
        Case("sessions.sample_hold_cap", "2") { $0.sessions.rules.sampleHoldCap == .seconds(2) },
        Case("sessions.efficiency", "0.22") { $0.sessions.rules.efficiency == 0.22 },
        Case("sessions.checkpoint_interval", "10") { $0.sessions.rules.checkpointInterval == .seconds(10) },
        Case("sessions.time_zone", #""Europe/Berlin""#) { $0.sessions.timeZone == "Europe/Berlin" },
        Case("backend.url", #""https://api.solidfocus.example/v1""#) { $0.backend.url == "https://api.solidfocus.example/v1" },
        Case("backend.provider", #""apple""#) { $0.backend.provider == "apple" },
        Case("backend.timeout", "2.5") { $0.backend.timeout == .milliseconds(2500) },
        Case("backend.upload_interval", "60") { $0.backend.uploadInterval == .seconds(60) },
        Case("backend.trainings_ttl", "3600") { $0.backend.trainingsTTL == 3600 },
        Case("backend.clock_sync_wait", "0") { $0.backend.clockSyncWait == 0 },
        Case("state.directory", #""/srv/ftms""#) { $0.state.directory == "/srv/ftms" },
        Case("state.low_space_warning_mib", "16") { $0.state.lowSpaceWarningMiB == 16 },
        Case("metrics_socket.path", #""/run/gym/metrics.sock""#) { $0.metricsSocket.path == "/run/gym/metrics.sock" },
        Case("metrics_socket.group", #""gym-screens""#) { $0.metricsSocket.group == "gym-screens" },
        Case("metrics_socket.mode", #""0666""#) { $0.metricsSocket.mode == 0o666 },
        Case("metrics_socket.max_clients", "8") { $0.metricsSocket.maxClients == 8 },
        Case("control_socket.path", #""/run/gym/control.sock""#) { $0.controlSocket.path == "/run/gym/control.sock" },
        Case("control_socket.group", #""""#) { $0.controlSocket.group.isEmpty },
        Case("control_socket.mode", "0o700") { $0.controlSocket.mode == 0o700 },
        Case("control_socket.max_clients", "2") { $0.controlSocket.maxClients == 2 },
        Case("prometheus.enabled", "false") { !$0.prometheus.enabled },
        Case("prometheus.listen", #""[::1]:9100""#) { $0.prometheus.listen == "[::1]:9100" },
        Case("log.level", #""debug""#) { $0.log.level == "debug" },
        Case("bluetooth.bus_address", #""unix:path=/tmp/bus/socket""#) { $0.bluetooth.busAddress == "unix:path=/tmp/bus/socket" },
        Case("mqtt.enabled", "true") { $0.mqtt.enabled },
        Case("mqtt.broker", #""mqtts://broker.gym.example:8884""#) { $0.mqtt.broker == "mqtts://broker.gym.example:8884" },
        Case("mqtt.client_id", #""gw-front-desk""#) { $0.mqtt.clientID == "gw-front-desk" },
        Case("mqtt.topic_prefix", #""gym/berlin""#) { $0.mqtt.topicPrefix == "gym/berlin" },
        Case("mqtt.gateway", #""floor-2""#) { $0.mqtt.gateway == "floor-2" },
        Case("mqtt.username", #""gateway-2""#) { $0.mqtt.username == "gateway-2" },
        Case("mqtt.password_file", #""/etc/ftms-bridge/mqtt-password""#) { $0.mqtt.passwordFile == "/etc/ftms-bridge/mqtt-password" },
        Case("mqtt.ca_file", #""/etc/ssl/gym-ca.pem""#) { $0.mqtt.caFile == "/etc/ssl/gym-ca.pem" },
        Case("mqtt.keepalive", "10") { $0.mqtt.keepalive == 10 },
        Case("mqtt.sample_rate", "4") { $0.mqtt.sampleRate == 4 },
        Case("mqtt.publish", #"["state", "session"]"#) { $0.mqtt.publish == ["state", "session"] },
        Case("mqtt.home_assistant", "false") { !$0.mqtt.homeAssistant },
        Case("mqtt.discovery_prefix", #""ha""#) { $0.mqtt.discoveryPrefix == "ha" },
        Case("mqtt.queue_capacity", "50") { $0.mqtt.queueCapacity == 50 },
        Case("fleet.enabled", "true") { $0.fleet.enabled },
        Case("fleet.gateway", #""floor-2""#) { $0.fleet.gateway == "floor-2" },
        Case("fleet.heartbeat", "1.5") { $0.fleet.heartbeat == .milliseconds(1500) },
        Case("fleet.lease", "20") { $0.fleet.lease == .seconds(20) },
        Case("fleet.rssi_margin", "6") { $0.fleet.rssiMargin == 6 },
        Case("fleet.heard_window", "30") { $0.fleet.heardWindow == .seconds(30) },
        Case("fleet.hold_unconfirmed", "300") { $0.fleet.holdUnconfirmed == .seconds(300) },
        Case("fleet.handover_on_stop", "true") { $0.fleet.handoverOnStop },
    ]

    @Test func everyKeyHasACase() {
        #expect(Set(Self.cases.map(\.key)) == Set(DaemonConfig.documentedKeys.map(\.key)))
    }

    @Test(arguments: cases)
    func aKeySetsItsFieldOnly(_ testCase: Case) throws {
        let (table, name) = try #require(split(testCase.key))
        let config = try DaemonConfig.parse("[\(table)]\n\(name) = \(testCase.literal)\n", source: "config.toml")
        #expect(testCase.check(config))
        #expect(!testCase.check(DaemonConfig()) || testCase.key == "control_socket.group", "the case must differ from the default")
        #expect(config.explicitKeys == [testCase.key])
        // Everything else is untouched: the rendered files differ in exactly this key's line.
        let changed = zip(config.rendered().split(separator: "\n"), DaemonConfig().rendered().split(separator: "\n")).filter { $0 != $1 }
        #expect(changed.count <= 1)
        #expect(changed.allSatisfy { $0.0.hasPrefix("\(name) = ") })
        // A dotted key at the top level is the same key.
        #expect(try DaemonConfig.parse("\(testCase.key) = \(testCase.literal)\n") == config)
    }

    @Test func allKeysAtOnce() throws {
        var text = ""
        var table = ""
        for testCase in Self.cases {
            let (caseTable, name) = try #require(split(testCase.key))
            if caseTable != table {
                text += "[\(caseTable)]\n"
                table = caseTable
            }
            text += "\(name) = \(testCase.literal)\n"
        }
        let config = try DaemonConfig.parse(text)
        for testCase in Self.cases { #expect(testCase.check(config), "\(testCase.key)") }
        #expect(config.explicitKeys == Set(Self.cases.map(\.key)))
    }

    /// Alternative spellings the docs promise.
    @Test func equivalentSpellings() throws {
        let pairs: [(String, String)] = [
            ("[sessions]\npause_after_idle = 6", "[sessions]\npause_after_idle = 6.0"),
            ("[metrics_socket]\nmode = \"0660\"", "[metrics_socket]\nmode = 0o660"),
            ("[metrics_socket]\nmode = \"660\"", "[metrics_socket]\nmode = 432"),
            ("[sessions]\nefficiency = 1", "[sessions]\nefficiency = 1.0"),
            ("sessions = { end_after_idle = 30 }", "[sessions]\nend_after_idle = 30"),
            ("[prometheus]\nlisten = \"localhost:1\"", "[prometheus]\nlisten = 'localhost:1'"),
            ("[sessions]\nminimum_movement = 0.0004", "[sessions]\nminimum_movement = 0.001"),
        ]
        for (a, b) in pairs {
            let lhs = try? DaemonConfig.parse(a)
            let rhs = try DaemonConfig.parse(b)
            if a.contains("0.0004") {
                #expect(lhs == nil, "below the millisecond resolution is refused, not rounded to zero")
            } else {
                #expect(lhs == rhs, "\(a) vs \(b)")
            }
        }
    }

    @Test func prometheusListenSplitsIntoHostAndPort() throws {
        var settings = DaemonConfig.Prometheus()
        #expect(try settings.listenAddress() == ("127.0.0.1", 9464))
        settings.listen = "[::1]:9100"
        #expect(try settings.listenAddress() == ("::1", 9100))
        settings.listen = "0.0.0.0:9100"
        #expect(throws: ConfigError.self) { try settings.listenAddress() }
    }

    private func split(_ key: String) -> (String, String)? {
        guard let dot = key.firstIndex(of: ".") else { return nil }
        return (String(key[..<dot]), String(key[key.index(after: dot)...]))
    }
}

import DaemonConfig
import Foundation
import Testing

/// A bad config is one line naming the file, the key and what was wrong, and the daemon
/// refuses to start; it is never a trap.
@Suite("Config errors")
struct ErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var text: String
        var kind: ConfigError.Kind
        var key: String?
        var fragment: String
        var testDescription: String { text.replacingOccurrences(of: "\n", with: "⏎") }
        init(_ text: String, _ kind: ConfigError.Kind, _ key: String?, _ fragment: String) {
            self.text = text
            self.kind = kind
            self.key = key
            self.fragment = fragment
        }
    }

    static let cases: [Case] = [
        // Syntax, with the line.
        Case("[sessions]\npause_after_idle = ", .syntax, nil, "TOML syntax error"),
        Case("[machines]\nallow = [\"a\"\n", .syntax, nil, "TOML syntax error"),
        Case("[log]\nlevel = \"info\"\nlevel = \"debug\"\n", .syntax, nil, "TOML syntax error"),
        Case("[log]\n[log]\n", .syntax, nil, "TOML syntax error"),
        Case("not toml at all", .syntax, nil, "TOML syntax error"),
        Case("[sessions\n", .syntax, nil, "TOML syntax error"),
        Case("a = \"\\u0000\"", .notText, nil, "escaped NUL"),
        // The two shapes toml++ would abort on in a debug build (TOMLPrecheck).
        Case("[.a]\n", .syntax, nil, "table header must start with a key"),
        Case("[log]\n[[ +]]\n", .syntax, nil, "table header must start with a key"),
        Case("[machines]\nallow = [}\n", .syntax, nil, "saw '}'"),
        Case("[machines]\nallow = [\"a\", # }\n }\n", .syntax, nil, "saw '}'"),
        Case("machines = { allow = [[}]] }\n", .syntax, nil, "saw '}'"),
        // Unknown tables and keys, with a suggestion when one is near.
        Case("[machine]\n", .unknownTable, "machine", "did you mean [machines]?"),
        Case("[gym]\n", .unknownTable, "gym", "the tables are [machines]"),
        Case("level = \"info\"\n", .unknownTable, "level", "unknown table"),
        // A table that moved out of the daemon says what replaced it (the dashboard's own process).
        Case("[dashboard]\nenabled = true\n", .unknownTable, "dashboard", "`ftms-bridge dashboard` (unit ftms-bridge-dashboard.service"),
        Case("[machines]\nalow = []\n", .unknownKey, "machines.alow", "did you mean machines.allow?"),
        Case("[machines]\nacceptGenericFTMS = true\n", .unknownKey, "machines.acceptGenericFTMS", "did you mean machines.accept_generic_ftms?"),
        Case("[sessions]\npause = 3\n", .unknownKey, "sessions.pause", "unknown key"),
        Case("[backend]\ntoken = \"secret\"\n", .unknownKey, "backend.token", "[backend] has url, provider"),
        Case("[machines.extra]\nx = 1\n", .unknownKey, "machines.extra", "unknown key"),
        // Wrong types.
        Case("machines = 3\n", .wrongType, "machines", "must be a table"),
        Case("[machines]\nallow = \"SF-Bike-0001\"\n", .wrongType, "machines.allow", "must be an array of strings, got \"SF-Bike-0001\""),
        Case("[machines]\nallow = [1]\n", .wrongType, "machines.allow", "entry 1, got 1"),
        Case("[machines]\naccept_generic_ftms = \"yes\"\n", .wrongType, "machines.accept_generic_ftms", "must be true or false"),
        Case("[machines]\nmax_connected = 2.5\n", .wrongType, "machines.max_connected", "whole number"),
        Case("[sessions]\npause_after_idle = \"6s\"\n", .wrongType, "sessions.pause_after_idle", "got \"6s\""),
        Case("[sessions]\nend_after_idle = 1979-05-27\n", .wrongType, "sessions.end_after_idle", "got a date"),
        Case("[sessions]\ntime_zone = 1\n", .wrongType, "sessions.time_zone", "must be a string"),
        Case("[log]\nlevel = [\"info\"]\n", .wrongType, "log.level", "got an array"),
        Case("[prometheus]\nenabled = 1\n", .wrongType, "prometheus.enabled", "true or false"),
        Case("[metrics_socket]\nmode = true\n", .wrongType, "metrics_socket.mode", "file mode"),
        Case("[state]\ndirectory = { path = \"/x\" }\n", .wrongType, "state.directory", "got a table"),
        // Values out of range or not allowed.
        Case("[sessions]\npause_after_idle = -3\n", .invalidValue, "sessions.pause_after_idle", "must be a number of seconds greater than 0, got -3"),
        Case("[sessions]\nend_after_idle = 0\n", .invalidValue, "sessions.end_after_idle", "greater than 0, got 0"),
        Case("[sessions]\ndisconnect_grace = nan\n", .invalidValue, "sessions.disconnect_grace", "greater than 0"),
        Case("[sessions]\nminimum_movement = inf\n", .invalidValue, "sessions.minimum_movement", "greater than 0"),
        Case("[sessions]\nsample_hold_cap = 1e300\n", .invalidValue, "sessions.sample_hold_cap", "at most 31536000 seconds"),
        Case("[sessions]\ncheckpoint_interval = 0.0001\n", .invalidValue, "sessions.checkpoint_interval", "at least 0.001"),
        Case("[sessions]\nefficiency = 0\n", .invalidValue, "sessions.efficiency", "greater than 0 and at most 1"),
        Case("[sessions]\nefficiency = 25\n", .invalidValue, "sessions.efficiency", "got 25"),
        Case("[sessions]\ntime_zone = \"Mars/Olympus_Mons\"\n", .invalidValue, "sessions.time_zone", "IANA time zone"),
        Case("[sessions]\ntime_zone = \"../../../dev/stdin\"\n", .invalidValue, "sessions.time_zone", "IANA time zone"),
        Case("[sessions]\ntime_zone = \"/etc/localtime\"\n", .invalidValue, "sessions.time_zone", "IANA time zone"),
        Case("[machines]\nallow = [\"\"]\n", .invalidValue, "machines.allow", "entry 1 must not be empty"),
        Case("[machines]\nallow = [\"SF-Bike-0001\", \" SF-Bike-0002\"]\n", .invalidValue, "machines.allow", "entry 2 must not start or end with spaces"),
        Case("[machines]\nallow = [\"SF-Bike-0001\", \"SF-Bike-0001\"]\n", .invalidValue, "machines.allow", "entry 2 repeats"),
        Case("[machines]\nallow = [\"a\\nb\"]\n", .invalidValue, "machines.allow", "control characters"),
        Case("[machines]\nadapters = [\"wlan0\"]\n", .invalidValue, "machines.adapters", "adapter name such as \"hci0\""),
        Case("[machines]\nmax_connected = 0\n", .invalidValue, "machines.max_connected", "from 1 to 64, got 0"),
        Case("[machines]\nmax_per_adapter = 65\n", .invalidValue, "machines.max_per_adapter", "from 1 to 64, got 65"),
        Case("[machines]\nmax_connected = 9223372036854775807\n", .invalidValue, "machines.max_connected", "from 1 to 64"),
        Case("[mqtt]\nbroker = \"tcp://broker:1883\"\n", .invalidValue, "mqtt.broker", "must be an mqtt:// or mqtts:// URL"),
        Case("[mqtt]\nbroker = \"mqtt://gw:s3cret@broker\"\n", .invalidValue, "mqtt.broker", "use username and password_file"),
        Case("[mqtt]\nbroker = \"mqtt://broker:99999\"\n", .invalidValue, "mqtt.broker", "port from 1 to 65535"),
        Case("[mqtt]\ntopic_prefix = \"gym/#\"\n", .invalidValue, "mqtt.topic_prefix", "letters, digits"),
        Case("[mqtt]\ntopic_prefix = \"/gym\"\n", .invalidValue, "mqtt.topic_prefix", "empty level"),
        Case("[mqtt]\ngateway = \"floor/2\"\n", .invalidValue, "mqtt.gateway", "letters, digits"),
        Case("[mqtt]\npublish = [\"samples\"]\n", .invalidValue, "mqtt.publish", "one of state, sample, session, upload"),
        Case("[mqtt]\nsample_rate = 0\n", .invalidValue, "mqtt.sample_rate", "from 0.1 to 20.0"),
        Case("[mqtt]\nkeepalive = 1\n", .invalidValue, "mqtt.keepalive", "from 5 to 3600"),
        Case("[mqtt]\npassword = \"s3cret\"\n", .unknownKey, "mqtt.password", "unknown key"),
        Case("[fleet]\ngateway = \"floor/2\"\n", .invalidValue, "fleet.gateway", "letters, digits"),
        Case("[fleet]\nrssi_margin = -1\n", .invalidValue, "fleet.rssi_margin", "from 0 to 100"),
        Case("[fleet]\nlease = 3\n", .invalidValue, "fleet.lease", "longer than fleet.heartbeat"),
        Case("[fleet]\nheartbeat = 12\n", .invalidValue, "fleet.heartbeat", "longer than fleet.heartbeat"),
        Case("[backend]\nurl = \"ftp://backend.example\"\n", .invalidValue, "backend.url", "must use http or https"),
        Case("[backend]\nurl = \"backend.example\"\n", .invalidValue, "backend.url", "http"),
        Case("[backend]\nurl = \"https://\"\n", .invalidValue, "backend.url", "must name a host"),
        Case("[backend]\nurl = \"https://user:pw@backend.example\"\n", .invalidValue, "backend.url", "must not carry a user or password"),
        Case("[backend]\nurl = \"https://backend.example/?token=1\"\n", .invalidValue, "backend.url", "without ?query"),
        Case("[backend]\nprovider = \"Google\"\n", .invalidValue, "backend.provider", "lowercase"),
        Case("[backend]\ntimeout = -1\n", .invalidValue, "backend.timeout", "greater than 0"),
        Case("[backend]\ntrainings_ttl = 0\n", .invalidValue, "backend.trainings_ttl", "from 1 to 31536000"),
        Case("[state]\ndirectory = \"var/lib/ftms\"\n", .invalidValue, "state.directory", "must be an absolute path"),
        Case("[metrics_socket]\npath = \"metrics.sock\"\n", .invalidValue, "metrics_socket.path", "absolute path"),
        Case("[metrics_socket]\npath = \"/run/ftms/\"\n", .invalidValue, "metrics_socket.path", "not a directory"),
        Case("[metrics_socket]\npath = \"/\(String(repeating: "a", count: 120))\"\n", .invalidValue, "metrics_socket.path", "at most 107 bytes"),
        Case("[metrics_socket]\ngroup = \"-bad\"\n", .invalidValue, "metrics_socket.group", "group name"),
        Case("[metrics_socket]\nmode = 660\n", .invalidValue, "metrics_socket.mode", "write 0o660"),
        Case("[metrics_socket]\nmode = \"0999\"\n", .invalidValue, "metrics_socket.mode", "octal"),
        Case("[metrics_socket]\nmode = \"0044\"\n", .invalidValue, "metrics_socket.mode", "owner read and write"),
        Case("[metrics_socket]\nmax_clients = 0\n", .invalidValue, "metrics_socket.max_clients", "from 1 to 4096"),
        Case("[control_socket]\nmode = \"0660\"\n", .invalidValue, "control_socket.mode", "must be owner-only"),
        Case("[control_socket]\nmode = 0o604\n", .invalidValue, "control_socket.mode", "got 0604"),
        Case("[control_socket]\ngroup = \"staff\"\n", .invalidValue, "control_socket.group", "must be empty"),
        Case("[control_socket]\npath = \"/run/ftms-bridge/metrics.sock\"\n", .invalidValue, "control_socket.path", "must differ"),
        Case("[prometheus]\nlisten = \"0.0.0.0:9464\"\n", .invalidValue, "prometheus.listen", "must be a loopback address"),
        Case("[prometheus]\nlisten = \"192.168.1.2:9464\"\n", .invalidValue, "prometheus.listen", "loopback"),
        Case("[prometheus]\nlisten = \"[::]:9464\"\n", .invalidValue, "prometheus.listen", "loopback"),
        Case("[prometheus]\nlisten = \"127.0.0.1\"\n", .invalidValue, "prometheus.listen", "must be host:port"),
        Case("[prometheus]\nlisten = \"127.0.0.1:99999\"\n", .invalidValue, "prometheus.listen", "port from 0 (any free port, logged at start) to 65535"),
        Case("[prometheus]\nlisten = \"::1:9464\"\n", .invalidValue, "prometheus.listen", "in brackets"),
        Case("[prometheus]\nlisten = \"127.0.0.256:9464\"\n", .invalidValue, "prometheus.listen", "loopback"),
        Case("[log]\nlevel = \"verbose\"\n", .invalidValue, "log.level", "must be one of trace, debug"),
        Case("[bluetooth]\nbus_address = \"/run/dbus/system_bus_socket\"\n", .invalidValue, "bluetooth.bus_address", "D-Bus address"),
    ]

    @Test(arguments: cases)
    func aBadConfigIsOneLineNamingTheKey(_ testCase: Case) {
        do {
            let config = try DaemonConfig.parse(testCase.text, source: "config.toml")
            Issue.record("accepted: \(config.rendered())")
        } catch {
            #expect(error.kind == testCase.kind)
            #expect(error.key == testCase.key)
            #expect(error.isOneLine)
            #expect(error.description.hasPrefix("config.toml"))
            if let key = testCase.key { #expect(error.description.contains(": \(key): ")) }
            #expect(error.description.contains(testCase.fragment), "\(error.description)")
        }
    }

    /// Brackets inside strings and comments are not TOML structure: the precheck lets them by.
    @Test func bracketsInStringsAndCommentsAreText() throws {
        let text = #"""
            [machines] # [.a] {}
            allow = [
              "}[.a]", # }
              '[+]',
              """
            [.b]""",
            ]
            """#
        let config = try DaemonConfig.parse(text)
        #expect(config.machines.allow == ["}[.a]", "[+]", "[.b]"])
        #expect(message("[log]\nlevel = \"}[.a]\"\n").contains("log.level: must be one of"))
    }

    /// The exact line the daemon prints, as the issue gives it.
    @Test func knownAnswerLines() {
        #expect(throws: ConfigError.self) { try DaemonConfig.parse("[sessions]\npause_after_idle = -3\n", source: "config.toml") }
        #expect(message("[sessions]\npause_after_idle = -3\n") == "config.toml: sessions.pause_after_idle: must be a number of seconds greater than 0, got -3")
        #expect(message("[machine]\n") == "config.toml: machine: unknown table (did you mean [machines]?)")
        let syntax = message("[log]\nlevel = \"info\"\nlevel = \"debug\"\n")
        #expect(syntax.hasPrefix("config.toml:3: TOML syntax error: "), "\(syntax)")
    }

    /// Values are quoted cut short and with their control characters escaped.
    @Test func quotedValuesStayShortAndOnOneLine() {
        let long = String(repeating: "x", count: 5000)
        let line = message("[log]\nlevel = \"\(long)\\n\\r\\u0007\"\n")
        #expect(line.count < 300)
        #expect(!line.contains("\n") && !line.contains("\u{7}"))
        let named = ConfigError(.unreadable, source: "/etc/evil\nname.toml", problem: "does not exist")
        #expect(named.description == "/etc/evil\\nname.toml: does not exist")
    }

    private func message(_ text: String) -> String {
        do {
            _ = try DaemonConfig.parse(text, source: "config.toml")
            return "accepted"
        } catch {
            return error.description
        }
    }
}

import DaemonConfig
import Testing

/// The one order every program finds the gateway's files in: the flag, else the config file's
/// key, else systemd's directory, else the default (docs/configuration.md).
@Suite("Gateway paths")
struct GatewayPathsTests {
    /// One row: which of the four places name the state directory, and which wins.
    struct Row: Sendable, CustomStringConvertible {
        var flag: String?
        var fileKey: String?
        var systemd: String?
        var expected: String
        var source: String
        var description: String { "flag \(flag ?? "-"), file \(fileKey ?? "-"), systemd \(systemd ?? "-")" }
    }

    static let rows: [Row] = [
        Row(expected: "/var/lib/ftms-bridge", source: "default"),
        Row(systemd: "/var/lib/unit", expected: "/var/lib/unit", source: "STATE_DIRECTORY"),
        Row(fileKey: "/srv/file", expected: "/srv/file", source: "config state.directory"),
        Row(fileKey: "/srv/file", systemd: "/var/lib/unit", expected: "/srv/file", source: "config state.directory"),
        Row(flag: "/tmp/flag", expected: "/tmp/flag", source: "--state-dir"),
        Row(flag: "/tmp/flag", systemd: "/var/lib/unit", expected: "/tmp/flag", source: "--state-dir"),
        Row(flag: "/tmp/flag", fileKey: "/srv/file", systemd: "/var/lib/unit", expected: "/tmp/flag", source: "--state-dir"),
        // An empty flag is no flag (as the doctor always took it).
        Row(flag: "", fileKey: "/srv/file", expected: "/srv/file", source: "config state.directory"),
    ]

    static func file(_ row: Row) throws -> DaemonConfig {
        try DaemonConfig.parse(row.fileKey.map { "[state]\ndirectory = \"\($0)\"\n" } ?? "")
    }

    static func environment(_ row: Row) -> [String: String] {
        row.systemd.map { ["STATE_DIRECTORY": $0] } ?? [:]
    }

    @Test(arguments: rows)
    func stateDirectory(row: Row) throws {
        let chosen = GatewayPaths(flags: .init(stateDirectory: row.flag), environment: Self.environment(row), config: try Self.file(row)).stateDirectory
        #expect(chosen.path == row.expected)
        #expect(chosen.source.description == row.source)
    }

    /// The daemon, which has no flags, reads what a command reads without one.
    @Test(arguments: rows.filter { $0.flag == nil })
    func theDaemonsConfigAgrees(row: Row) throws {
        let daemon = try Self.file(row).resolvingPaths(environment: Self.environment(row))
        #expect(daemon.state.directory == row.expected)
    }

    /// Both sockets follow the same order, with `$RUNTIME_DIRECTORY` as their directory.
    @Test func socketsFollowTheSameOrder() throws {
        let systemd = ["RUNTIME_DIRECTORY": "/run/unit"]
        let file = try DaemonConfig.parse("[control_socket]\npath = \"/srv/control.sock\"\n")
        let paths = GatewayPaths(flags: .init(metricsSocket: "/tmp/m.sock"), environment: systemd, config: file)
        #expect(paths.metricsSocket == .init(path: "/tmp/m.sock", source: .flag("--metrics-socket")))
        #expect(paths.controlSocket == .init(path: "/srv/control.sock", source: .config("control_socket.path")))
        let unflagged = GatewayPaths(environment: systemd, config: DaemonConfig())
        #expect(unflagged.metricsSocket == .init(path: "/run/unit/metrics.sock", source: .environment("RUNTIME_DIRECTORY")))
        #expect(unflagged.controlSocket == .init(path: "/run/unit/control.sock", source: .environment("RUNTIME_DIRECTORY")))
        let bare = GatewayPaths(environment: [:], config: DaemonConfig())
        #expect(bare.metricsSocket.path == "/run/ftms-bridge/metrics.sock")
        #expect(bare.controlSocket.path == "/run/ftms-bridge/control.sock")
    }

    /// A command given its flag never reads the config file, so a broken one cannot stop it.
    @Test func aFlagReadsNoFile() throws {
        struct Unread: Error {}
        let chosen = try GatewayPaths.choose(.stateDirectory, flag: "/tmp/flag", environment: [:]) { () throws(Unread) -> DaemonConfig in
            throw Unread()
        }
        #expect(chosen.path == "/tmp/flag")
        #expect(throws: Unread.self) {
            try GatewayPaths.choose(.stateDirectory, flag: nil, environment: [:]) { () throws(Unread) -> DaemonConfig in throw Unread() }
        }
    }

    // What systemd announces.

    @Test func readsWhatSystemdSets() {
        #expect(GatewayPaths.systemdDirectory("/var/lib/ftms-bridge") == "/var/lib/ftms-bridge")
        #expect(GatewayPaths.systemdDirectory("/run/ftms-bridge") == "/run/ftms-bridge")
    }

    /// Several names in one setting arrive colon-separated; the first is the unit's own.
    @Test func firstOfSeveral() {
        #expect(GatewayPaths.systemdDirectory("/var/lib/a:/var/lib/b") == "/var/lib/a")
    }

    @Test(arguments: [nil, "", ":", "relative/dir", ":relative"])
    func absentOrRelativeIsNotSystemd(value: String?) {
        #expect(GatewayPaths.systemdDirectory(value) == nil)
    }
}

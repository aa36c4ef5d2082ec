import DaemonConfig
import Testing

/// systemd's `StateDirectory=` and `RuntimeDirectory=` move the defaults, never a key the file set.
@Suite("Config environment")
struct EnvironmentTests {
    static let systemd = ["STATE_DIRECTORY": "/var/lib/ftms-bridge-test", "RUNTIME_DIRECTORY": "/run/ftms-bridge-test"]

    @Test func systemdDirectoriesReplaceTheDefaults() throws {
        let config = try DaemonConfig.parse("").resolvingPaths(environment: Self.systemd)
        #expect(config.state.directory == "/var/lib/ftms-bridge-test")
        #expect(config.metricsSocket.path == "/run/ftms-bridge-test/metrics.sock")
        #expect(config.controlSocket.path == "/run/ftms-bridge-test/control.sock")
    }

    @Test func aKeyTheFileSetWinsEvenAtItsDefault() throws {
        let text = """
            [state]
            directory = "/var/lib/ftms-bridge"
            [metrics_socket]
            path = "/srv/metrics.sock"
            """
        let config = try DaemonConfig.parse(text).resolvingPaths(environment: Self.systemd)
        #expect(config.state.directory == "/var/lib/ftms-bridge")
        #expect(config.metricsSocket.path == "/srv/metrics.sock")
        #expect(config.controlSocket.path == "/run/ftms-bridge-test/control.sock")
    }

    @Test func theExplicitSetCanBeGiven() {
        var file = DaemonConfig()
        file.explicitKeys = ["control_socket.path"]
        let config = file.resolvingPaths(environment: Self.systemd)
        #expect(config.controlSocket.path == DaemonConfig().controlSocket.path)
        #expect(config.metricsSocket.path == "/run/ftms-bridge-test/metrics.sock")
    }

    @Test func unusableValuesAreIgnored() {
        let cases: [[String: String]] = [[:], ["STATE_DIRECTORY": ""], ["STATE_DIRECTORY": "relative/dir", "RUNTIME_DIRECTORY": "run"], ["RUNTIME_DIRECTORY": ":"]]
        for environment in cases {
            #expect(DaemonConfig().resolvingPaths(environment: environment) == DaemonConfig(), "\(environment)")
        }
    }

    /// systemd lists several directories with `:` when the unit names several; the first is ours.
    @Test func theFirstOfSeveralDirectories() {
        let config = DaemonConfig().resolvingPaths(environment: ["STATE_DIRECTORY": "/var/lib/a/:/var/lib/b", "RUNTIME_DIRECTORY": "/run/a/"])
        #expect(config.state.directory == "/var/lib/a")
        #expect(config.metricsSocket.path == "/run/a/metrics.sock")
    }
}

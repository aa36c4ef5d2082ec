import Systemd
import Testing

@Suite("Service directories")
struct ServiceDirectoriesTests {
    @Test func readsWhatSystemdSets() {
        let directories = ServiceDirectories(environment: [
            "STATE_DIRECTORY": "/var/lib/ftms-bridge",
            "RUNTIME_DIRECTORY": "/run/ftms-bridge",
            "CONFIGURATION_DIRECTORY": "/etc/ftms-bridge",
        ])
        #expect(directories.state == "/var/lib/ftms-bridge")
        #expect(directories.runtime == "/run/ftms-bridge")
        #expect(directories.configuration == "/etc/ftms-bridge")
    }

    /// Several names in one setting arrive colon-separated; the first is the unit's own.
    @Test func firstOfSeveral() {
        #expect(ServiceDirectories(environment: ["STATE_DIRECTORY": "/var/lib/a:/var/lib/b"]).state == "/var/lib/a")
    }

    @Test(arguments: [nil, "", ":", "relative/dir", ":relative"])
    func absentOrRelativeIsNotSystemd(value: String?) {
        let environment = value.map { ["STATE_DIRECTORY": $0] } ?? [:]
        #expect(ServiceDirectories(environment: environment).state == nil)
    }

    /// The variables a supervised child must not inherit.
    @Test func childEnvironmentList() {
        #expect(SystemdVariable.inheritedBySupervisedChildren == ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"])
    }
}

import Systemd
import Testing

@Suite("systemd variables")
struct SystemdVariableTests {
    /// The variables a supervised child must not inherit.
    @Test func childEnvironmentList() {
        #expect(SystemdVariable.inheritedBySupervisedChildren == ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"])
    }
}

import Systemd
import Testing

/// `WATCHDOG_USEC`/`WATCHDOG_PID` read as sd_watchdog_enabled(3) reads them.
@Suite("Watchdog settings")
struct WatchdogSettingsTests {
    static let pid: Int32 = 4242

    @Test func enabledForThisProcess() throws {
        let settings = try WatchdogSettings.from(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "4242"], processID: Self.pid)
        #expect(settings?.timeout == .seconds(30))
        #expect(settings?.pingInterval == .seconds(15))
    }

    /// Without WATCHDOG_PID the settings are taken as ours.
    @Test func enabledWithoutAPID() throws {
        let settings = try WatchdogSettings.from(environment: ["WATCHDOG_USEC": "3"], processID: Self.pid)
        #expect(settings?.timeout == .microseconds(3))
        #expect(settings?.pingInterval == .nanoseconds(1500))
    }

    /// A child that inherited its parent's variables must not ping in its name.
    @Test func anotherProcessesWatchdogIsNotOurs() throws {
        #expect(try WatchdogSettings.from(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "4243"], processID: Self.pid) == nil)
    }

    @Test(arguments: [[:], ["WATCHDOG_PID": "4242"], ["NOTIFY_SOCKET": "/run/systemd/notify"]])
    func unsetMeansNoWatchdog(environment: [String: String]) throws {
        #expect(try WatchdogSettings.from(environment: environment, processID: Self.pid) == nil)
    }

    /// The largest finite value systemd can write still gives a duration (no overflow trap).
    @Test func largestFiniteTimeout() throws {
        let settings = try WatchdogSettings.from(environment: ["WATCHDOG_USEC": "18446744073709551614"], processID: Self.pid)
        #expect(settings?.timeout == .microseconds(UInt64.max - 1))
    }

    @Test(arguments: ["", "abc", "-5", "+5", " 30", "30 ", "0x10", "1e6", "0", "18446744073709551615", "99999999999999999999"])
    func garbageTimeoutIsAnError(value: String) {
        #expect(throws: WatchdogSettingsError.invalidTimeout(value)) {
            try WatchdogSettings.from(environment: ["WATCHDOG_USEC": value, "WATCHDOG_PID": "4242"], processID: Self.pid)
        }
    }

    @Test(arguments: ["", "x", "0", "-1", "4242 ", "2147483648"])
    func garbagePIDIsAnError(value: String) {
        #expect(throws: WatchdogSettingsError.invalidPID(value)) {
            try WatchdogSettings.from(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": value], processID: Self.pid)
        }
    }

    @Test func errorsNameTheVariableAndValue() {
        #expect(WatchdogSettingsError.invalidTimeout("abc").description == "WATCHDOG_USEC='abc' is not a positive, finite number of microseconds")
        #expect(WatchdogSettingsError.invalidPID("x").description == "WATCHDOG_PID='x' is not a process id")
    }
}

package import Clocks
import DaemonConfig

/// Everything the doctor looks at that is not fixed by the machine itself: the command's
/// flags, the environment, where policy files and sysfs live, the clock and the probes. The
/// command fills it from its arguments; tests point it at temporary files and private buses.
package struct DoctorInputs: Sendable {
    /// The `ftms-bridge` version, printed at the top of the report.
    package var version: String
    /// `--config`; `nil` means ``defaultConfigPath``, where a missing file is only a warning.
    package var configPath: String?
    /// Where the daemon reads its config when not told otherwise.
    package var defaultConfigPath = GatewayPaths.defaultConfigFile
    /// `--bus`: overrides the config and `DBUS_SYSTEM_BUS_ADDRESS`.
    package var busAddress: String?
    /// The system bus when neither the flag, the config nor the environment names one.
    package var standardBusAddress = BusAddressChoice.standard
    /// `--backend`: overrides the config's `backend.url`.
    package var backendURL: String?
    /// `--state-dir`: overrides `$STATE_DIRECTORY` and the config's `state.directory`.
    package var stateDirectory: String?
    /// The process environment (`DBUS_SYSTEM_BUS_ADDRESS`, `STATE_DIRECTORY`).
    package var environment: [String: String]
    /// The account the service runs as (the sysusers file creates it).
    package var serviceUser = "ftms-bridge"
    /// The group the D-Bus policy grants BlueZ to (Debian's `bluetooth`).
    package var serviceGroup = "bluetooth"
    /// Where dbus-daemon reads policy files from, in the order it applies them.
    package var policyDirectories = ["/usr/share/dbus-1/system.d", "/etc/dbus-1/system.d"]
    /// `/sys/class/bluetooth`: one entry per controller the kernel knows.
    package var bluetoothSysfs = "/sys/class/bluetooth"
    /// Where `bluetoothd` may be installed (Debian: /usr/libexec/bluetooth), first found is asked.
    package var bluetoothdPaths = ["/usr/libexec/bluetooth/bluetoothd", "/usr/lib/bluetooth/bluetoothd", "/usr/sbin/bluetoothd"]
    package var timeouts = DoctorTimeouts()
    /// Ages (the oldest pending session) are measured against this.
    package var clock: WallClock = .system
    /// Opens an `AF_BLUETOOTH` socket: the kernel test.
    package var kernelProbe: KernelBluetoothProbe = .system
    /// Reads a controller's version over HCI.
    package var controllerProbe: any ControllerProbe = HCIControllerProbe()

    package init(version: String, environment: [String: String]) {
        self.version = version
        self.environment = environment
    }
}

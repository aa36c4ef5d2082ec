public import Store
import DaemonConfig

/// Everything the doctor looks at that is not fixed by the machine itself: the command's
/// flags, the environment, where policy files and sysfs live, the clock and the probes. The
/// command fills it from its arguments; tests point it at temporary files and private buses.
public struct DoctorInputs: Sendable {
    /// The `ftms-bridge` version, printed at the top of the report.
    public var version: String
    /// `--config`; `nil` means ``defaultConfigPath``, where a missing file is only a warning.
    public var configPath: String?
    /// Where the daemon reads its config when not told otherwise.
    public var defaultConfigPath = DaemonConfig.defaultPath
    /// `--bus`: overrides the config and `DBUS_SYSTEM_BUS_ADDRESS`.
    public var busAddress: String?
    /// `--backend`: overrides the config's `backend.url`.
    public var backendURL: String?
    /// `--state-dir`: overrides `$STATE_DIRECTORY` and the config's `state.directory`.
    public var stateDirectory: String?
    /// The process environment (`DBUS_SYSTEM_BUS_ADDRESS`, `STATE_DIRECTORY`).
    public var environment: [String: String]
    /// The account the service runs as (the sysusers file creates it).
    public var serviceUser = "ftms-bridge"
    /// The group the D-Bus policy grants BlueZ to (Debian's `bluetooth`).
    public var serviceGroup = "bluetooth"
    /// Where dbus-daemon reads policy files from, in the order it applies them.
    public var policyDirectories = ["/usr/share/dbus-1/system.d", "/etc/dbus-1/system.d"]
    /// `/sys/class/bluetooth`: one entry per controller the kernel knows.
    public var bluetoothSysfs = "/sys/class/bluetooth"
    /// Where `bluetoothd` may be installed (Debian: /usr/libexec/bluetooth), first found is asked.
    public var bluetoothdPaths = ["/usr/libexec/bluetooth/bluetoothd", "/usr/lib/bluetooth/bluetoothd", "/usr/sbin/bluetoothd"]
    public var timeouts = DoctorTimeouts()
    /// Ages (the oldest pending session) are measured against this.
    public var clock: WallClock = .system
    /// Opens an `AF_BLUETOOTH` socket: the kernel test.
    public var kernelProbe: KernelBluetoothProbe = .system
    /// Reads a controller's version over HCI.
    public var controllerProbe: any ControllerProbe = HCIControllerProbe()

    public init(version: String, environment: [String: String]) {
        self.version = version
        self.environment = environment
    }
}

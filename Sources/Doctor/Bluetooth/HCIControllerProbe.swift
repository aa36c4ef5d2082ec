import CBluetooth
import OwnThread

#if canImport(Glibc)
import Glibc
#endif

/// ``ControllerProbe`` through libbluetooth: `hci_open_dev`, then Read Local Version
/// Information and Read Local Supported Features, each with libbluetooth's own timeout, on a
/// thread of its own. Every failure (no Bluetooth in the kernel, no such device, a command
/// refused or timed out) is a value, never a crash.
package struct HCIControllerProbe: ControllerProbe {
    package init() {}

    package func read(index: Int, timeout: Duration) async -> Result<ControllerInfo, ControllerProbeFailure> {
        guard index >= 0, index <= Int(UInt16.max) else { return .failure(.noDevice) }
        let milliseconds = Int32(clamping: max(1, Seconds.milliseconds(timeout)))
        return await onOwnThread { Self.readBlocking(index: Int32(index), milliseconds: milliseconds) }
    }

    private static func readBlocking(index: Int32, milliseconds: Int32) -> Result<ControllerInfo, ControllerProbeFailure> {
        let device = hci_open_dev(index)
        guard device >= 0 else {
            let error = errno
            switch error {
            case EAFNOSUPPORT: return .failure(.noKernelSupport)
            case ENODEV: return .failure(.noDevice)
            default: return .failure(.failed("cannot open hci\(index): \(Errno.describe(error))"))
            }
        }
        defer { hci_close_dev(device) }
        var version = hci_version()
        guard hci_read_local_version(device, &version, milliseconds) >= 0 else {
            return .failure(.failed("Read Local Version on hci\(index) failed: \(Errno.describe(errno))"))
        }
        var features = [UInt8](repeating: 0, count: 8)
        let leSupported: Bool? = hci_read_local_features(device, &features, milliseconds) >= 0
            ? features[Self.leFeatureByte] & Self.leFeatureBit != 0 : nil
        return .success(ControllerInfo(
            manufacturer: version.manufacturer, hciVersion: version.hci_ver, hciRevision: version.hci_rev,
            lmpVersion: version.lmp_ver, lmpSubversion: version.lmp_subver, leSupported: leSupported))
    }

    /// "LE Supported (Controller)" is LMP feature bit 38: byte 4, bit 6 (libbluetooth's LMP_LE).
    static let leFeatureByte = 4
    static let leFeatureBit: UInt8 = 0x40
}

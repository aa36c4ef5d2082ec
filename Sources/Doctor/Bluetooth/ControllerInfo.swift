/// What a controller says about itself in HCI Read Local Version Information (Core spec
/// Vol 4 Part E §7.4.1) and its LMP feature bits.
package struct ControllerInfo: Sendable, Hashable {
    /// Bluetooth SIG company identifier of the chip's maker.
    package var manufacturer: UInt16
    /// HCI version: 6 = Bluetooth 4.0, 9 = 5.0, …
    package var hciVersion: UInt8
    package var hciRevision: UInt16
    package var lmpVersion: UInt8
    package var lmpSubversion: UInt16
    /// The "LE Supported (Controller)" feature bit; `nil` when the features could not be read.
    package var leSupported: Bool?

    package init(manufacturer: UInt16, hciVersion: UInt8, hciRevision: UInt16 = 0, lmpVersion: UInt8 = 0, lmpSubversion: UInt16 = 0, leSupported: Bool? = nil) {
        self.manufacturer = manufacturer
        self.hciVersion = hciVersion
        self.hciRevision = hciRevision
        self.lmpVersion = lmpVersion
        self.lmpSubversion = lmpSubversion
        self.leSupported = leSupported
    }

    /// `Intel`, or `company id 1234` for a maker not in the doctor's short table.
    package var manufacturerName: String {
        CompanyIdentifiers.name(of: manufacturer) ?? "company id \(manufacturer)"
    }

    /// `Bluetooth 5.2`, or `HCI version 20` for one newer than this build knows.
    package var bluetoothVersion: String {
        CoreVersion.name(ofHCIVersion: hciVersion).map { "Bluetooth \($0)" } ?? "HCI version \(hciVersion)"
    }

    /// Below 4.0 there is no Low Energy at all.
    package var canDoLowEnergy: Bool {
        leSupported ?? (hciVersion >= CoreVersion.firstLowEnergy)
    }
}

/// Why a controller's version could not be read.
package enum ControllerProbeFailure: Error, Sendable, Hashable {
    /// The kernel has no Bluetooth (EAFNOSUPPORT): there is no controller behind any adapter.
    case noKernelSupport
    /// No HCI device with that index (ENODEV): the adapter is not a kernel controller.
    case noDevice
    /// Anything else, one line (`EPERM`, the command timed out).
    case failed(String)
}

/// Reads a controller's version: libbluetooth in the product, a table in tests.
package protocol ControllerProbe: Sendable {
    /// `index` is the N of `hciN`.
    func read(index: Int, timeout: Duration) async -> Result<ControllerInfo, ControllerProbeFailure>
}

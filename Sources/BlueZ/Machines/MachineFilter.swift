/// Which devices are machines the gateway takes (contract §2).
///
/// BlueZ ORs the discovery filters of every client on the bus, so a device reaching us is not
/// proof it matched ours: the service UUID and the name are checked again here. A name that
/// matches without 0xFE01 is not a SolidFocus machine and is not taken.
package struct MachineFilter: Sendable, Equatable {
    /// Shell-style patterns (`*`, `?`) for the Complete Local Name.
    package var namePatterns: [String]
    /// Addresses taken regardless of name (still with the SolidFocus service UUID).
    package var addresses: Set<String>
    /// Also take any FTMS machine (service 0x1826), whatever its name. Off by default.
    package var acceptGenericFTMS: Bool
    /// Adapter names (`hci0`) the gateway may use; empty means all. Discovery starts only on
    /// these and machines heard only elsewhere are not taken: another adapter on the box may
    /// belong to something else (advertising, say), which a scan would disturb.
    package var adapters: Set<String>

    package static let solidFocusUUID = "0000fe01-0000-1000-8000-00805f9b34fb"
    package static let fitnessMachineUUID = "00001826-0000-1000-8000-00805f9b34fb"

    package init(
        namePatterns: [String] = ["SF-Bike-*", "SF-Rower-*"], addresses: Set<String> = [], acceptGenericFTMS: Bool = false,
        adapters: Set<String> = []
    ) {
        self.namePatterns = namePatterns
        self.addresses = Set(addresses.map { $0.uppercased() })
        self.acceptGenericFTMS = acceptGenericFTMS
        self.adapters = adapters
    }

    /// Whether `path` (`/org/bluez/hci0`) or name (`hci0`) is an adapter the gateway may use.
    package func allows(adapter path: String) -> Bool {
        guard !adapters.isEmpty else { return true }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return adapters.contains(name)
    }

    /// The UUIDs to put in `SetDiscoveryFilter`.
    package var discoveryUUIDs: [String] {
        acceptGenericFTMS ? [Self.solidFocusUUID, Self.fitnessMachineUUID] : [Self.solidFocusUUID]
    }

    /// `gattServices`: the UUIDs of the device's GATT services BlueZ holds, empty for a
    /// device never connected. Once connected, bluetoothd 5.66 stops listing what the device
    /// advertises in `UUIDs`: while connected it lists the GATT services, and after a
    /// disconnect (its GATT cache keeps the services, the default) it lists nothing, since it
    /// clears the advertised list and ignores new advertisements of a resolved device. 0xFE01,
    /// which SolidFocus machines only advertise, is then gone for good, and a machine left
    /// connected by a crashed instance, or one coming back after a drop, would never be taken
    /// again. Such a device is taken on its name (or address) and the Fitness Machine service
    /// in its GATT database, or in the service data it advertises (the caller passes both as
    /// `gattServices`).
    package func accepts(name: String?, address: String, uuids: [String], gattServices: [String] = []) -> Bool {
        let lowered = Set(uuids.map { $0.lowercased() })
        let served = Set(gattServices.map { $0.lowercased() })
        if acceptGenericFTMS, lowered.contains(Self.fitnessMachineUUID) || served.contains(Self.fitnessMachineUUID) { return true }
        guard lowered.contains(Self.solidFocusUUID) || served.contains(Self.fitnessMachineUUID) else { return false }
        if addresses.contains(address.uppercased()) { return true }
        guard let name else { return false }
        return namePatterns.contains { Self.glob($0, matches: name) }
    }

    /// `*` matches any run, `?` one character; everything else literally.
    static func glob(_ pattern: String, matches text: String) -> Bool {
        let pattern = Array(pattern)
        let text = Array(text)
        var p = 0
        var t = 0
        var star: Int? = nil
        var resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                resume = t
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}

/// Which devices are machines the gateway takes (SPEC §2).
///
/// BlueZ ORs the discovery filters of every client on the bus, so a device reaching us is not
/// proof it matched ours: the service UUID and the name are checked again here. A name that
/// matches without 0xFE01 is not a SolidFocus machine and is not taken.
public struct MachineFilter: Sendable, Equatable {
    /// Shell-style patterns (`*`, `?`) for the Complete Local Name.
    public var namePatterns: [String]
    /// Addresses taken regardless of name (still with the SolidFocus service UUID).
    public var addresses: Set<String>
    /// Also take any FTMS machine (service 0x1826), whatever its name. Off by default.
    public var acceptGenericFTMS: Bool

    public static let solidFocusUUID = "0000fe01-0000-1000-8000-00805f9b34fb"
    public static let fitnessMachineUUID = "00001826-0000-1000-8000-00805f9b34fb"

    public init(namePatterns: [String] = ["SF-Bike-*", "SF-Rower-*"], addresses: Set<String> = [], acceptGenericFTMS: Bool = false) {
        self.namePatterns = namePatterns
        self.addresses = Set(addresses.map { $0.uppercased() })
        self.acceptGenericFTMS = acceptGenericFTMS
    }

    /// The UUIDs to put in `SetDiscoveryFilter`.
    public var discoveryUUIDs: [String] {
        acceptGenericFTMS ? [Self.solidFocusUUID, Self.fitnessMachineUUID] : [Self.solidFocusUUID]
    }

    public func accepts(name: String?, address: String, uuids: [String]) -> Bool {
        let lowered = Set(uuids.map { $0.lowercased() })
        if acceptGenericFTMS, lowered.contains(Self.fitnessMachineUUID) { return true }
        guard lowered.contains(Self.solidFocusUUID) else { return false }
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

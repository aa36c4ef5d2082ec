/// Bluetooth Core specification versions by their HCI/LMP version number (Assigned Numbers
/// §2.1), and what each implies for a gateway holding many LE links.
enum CoreVersion {
    /// Bluetooth 4.0 (HCI version 6) introduced Low Energy.
    static let firstLowEnergy: UInt8 = 6

    static func name(ofHCIVersion version: UInt8) -> String? {
        let names = ["1.0b", "1.1", "1.2", "2.0", "2.1", "3.0", "4.0", "4.1", "4.2", "5.0", "5.1", "5.2", "5.3", "5.4", "6.0", "6.1"]
        return Int(version) < names.count ? names[Int(version)] : nil
    }

    /// How many LE links to expect, honestly: the specification sets no limit, the
    /// controller's firmware does, and it is rarely documented. These are rules of thumb from
    /// field reports (Home Assistant's adapter notes, BlueZ users), not promises.
    static func typicalLELinks(hciVersion version: UInt8) -> (low: Int, high: Int)? {
        switch version {
        case ..<firstLowEnergy: nil
        case firstLowEnergy, firstLowEnergy + 1: (3, 5)  // 4.0 and 4.1: CSR8510-class dongles
        default: (5, 7)  // 4.2 and 5.x: Realtek RTL8761B, Broadcom, Cypress, Intel
        }
    }
}

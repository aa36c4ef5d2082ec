/// Bluetooth SIG assigned numbers the product relies on, and UUID spelling helpers.
public enum AssignedNumbers {
    /// Fitness Machine Service.
    public static let fitnessMachineService: UInt16 = 0x1826
    /// The 16-bit service UUID SolidFocus machines advertise (contract §2).
    public static let solidFocusService: UInt16 = 0xFE01
    public static let deviceInformationService: UInt16 = 0x180A
    public static let manufacturerNameString: UInt16 = 0x2A29
    public static let modelNumberString: UInt16 = 0x2A24

    /// The Bluetooth Base UUID suffix that turns a 16-bit UUID into 128 bits.
    static let baseSuffix = "-0000-1000-8000-00805f9b34fb"

    public static func fullUUID(_ short: UInt16) -> String {
        "0000" + hex4(short) + baseSuffix
    }

    static func hex4(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// The 16-bit UUID in `2ad2`, `0x2AD2` or `00002ad2-0000-1000-8000-00805f9b34fb` form.
    public static func shortUUID(parsing text: String) -> UInt16? {
        var text = text.lowercased()
        if text.count == 36, text.hasPrefix("0000"), text.hasSuffix(baseSuffix) {
            text = String(text.dropFirst(4).prefix(4))
        }
        if text.hasPrefix("0x") { text.removeFirst(2) }
        guard (1...4).contains(text.count) else { return nil }
        return UInt16(text, radix: 16)
    }
}

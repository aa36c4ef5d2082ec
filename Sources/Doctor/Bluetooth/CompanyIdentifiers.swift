/// The Bluetooth SIG company identifiers of the chips a gateway box is likely to have (Assigned
/// Numbers, "Company Identifiers"), with short names an operator recognises. Anything else is
/// shown as its number, which the SIG's list resolves.
enum CompanyIdentifiers {
    static func name(of identifier: UInt16) -> String? {
        table[identifier]
    }

    static let table: [UInt16: String] = [
        0x0000: "Ericsson",
        0x0002: "Intel",
        0x000A: "Cambridge Silicon Radio (Qualcomm)",
        0x000D: "Texas Instruments",
        0x000F: "Broadcom",
        0x001D: "Qualcomm",
        0x0030: "STMicroelectronics",
        0x0045: "Atheros",
        0x0046: "MediaTek",
        0x0048: "Marvell",
        0x0059: "Nordic Semiconductor",
        0x005D: "Realtek",
        0x0131: "Cypress",
        0x02FF: "Silicon Labs",
        0x05F1: "The Linux Foundation (virtual controller)",
    ]
}

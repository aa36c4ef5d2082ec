import Foundation

/// The device id derived from the machine's id, as systemd's `sd_id128_get_machine_app_specific`
/// derives an application's id: HMAC-SHA256 keyed by the 16 bytes of `/etc/machine-id` over
/// this application's 16-byte id, the first 16 bytes of it made a version 4 UUID. The same box
/// gets the same id whatever happens to its state directory, and the machine id itself, which
/// other software reads, is not what the backend sees.
///
/// It is the last source of a new store's id (``DeviceIdentityFile``): the database's id and
/// the identity file come first, so an existing gateway keeps the id it has.
public enum MachineAppID {
    /// Where systemd keeps the machine id. The daemon passes it; tests pass a file of their own.
    public static let systemPath = "/etc/machine-id"

    /// `ftms-bridge`'s application id (`systemd-id128 new`, made once; never to change).
    static let applicationID: [UInt8] = hexBytes("6f2d0c8b5e7a4f1c9a3b8e2d4c6f1a07") ?? []

    /// The device id for the machine id in the file at `path`, or nil when there is none (no
    /// file, an empty one, `uninitialized`, anything but 32 hex digits, all zeros).
    static func deviceID(machineIDPath path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path),
              let text = String(data: data.prefix(64), encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
              let machine = hexBytes(text), machine.count == 16, machine.contains(where: { $0 != 0 })
        else { return nil }
        return deviceID(machineID: machine)
    }

    static func deviceID(machineID: [UInt8]) -> String {
        var id = Array(SHA256.hmac(key: machineID, message: applicationID).prefix(16))
        id[6] = (id[6] & 0x0F) | 0x40
        id[8] = (id[8] & 0x3F) | 0x80
        let hex = id.map { byte in String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16) }.joined()
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }

    /// 32 hex digits as 16 bytes; nil for anything else.
    static func hexBytes(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let high = nibble(characters[index]), let low = nibble(characters[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

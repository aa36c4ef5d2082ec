import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The device id in a file of its own, `device-id` in the state directory (mode 0600), so that
/// the gateway's identity outlives its database: a zeroed or lost store opens fresh with the
/// same id, and the backend's binding of the account to the device (seed 000) still holds.
///
/// The database stays where the store reads the id from; this file is its second copy. On every
/// open the database's id, when it has one, wins and is written here (existing gateways keep the
/// id they have); a fresh database takes this file's id, else one derived from the machine id
/// (``MachineAppID``), else a random one. Written through ``DurableFile``: at every instant the
/// old id or the new, whole.
struct DeviceIdentityFile {
    static let fileName = "device-id"
    let path: String

    init(directory: String) {
        path = directory.hasSuffix("/") ? directory + Self.fileName : directory + "/" + Self.fileName
    }

    /// The id in the file, as a lower-case UUID; nil when missing or not a UUID.
    func read() -> String? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 256,
              let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
              let uuid = UUID(uuidString: text)
        else { return nil }
        return uuid.uuidString.lowercased()
    }

    /// Writes `id`; the error's text says why it could not.
    func write(_ id: String) throws {
        if let reason = DurableFile.replace(path, with: Array((id + "\n").utf8)) {
            throw StoreError.directory(path: path, reason: "cannot write the device id: \(reason)")
        }
    }
}

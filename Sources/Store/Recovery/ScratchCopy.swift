import Foundation
import ProcessOutput

#if canImport(Glibc)
import Glibc
#endif

/// A copy of a database file (and its WAL) in a fresh directory beside it, for reading with
/// SQLite without touching the original. A damaged header is rebuilt in the copy
/// (``HeaderRepair``); a file of zeros or of no database at all is refused.
struct ScratchCopy {
    let directory: String
    let path: String
    let headerRebuilt: Bool

    init(of original: String) throws {
        let parent = (original as NSString).deletingLastPathComponent
        var template = Array(((parent.isEmpty ? "." : parent) + "/.ftms-bridge-salvage-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap(mkdtemp) }) else {
            throw StoreError.directory(path: parent, reason: "cannot make a scratch directory to read the damaged file in: \(errnoText(errno))")
        }
        directory = String(cString: made)
        path = directory + "/copy.sqlite"
        do {
            let wal = FileManager.default.fileExists(atPath: original + "-wal")
            let size = try Self.copy(original, to: path)
            if wal { _ = try Self.copy(original + "-wal", to: path + "-wal") }
            var prefix = [UInt8](repeating: 0, count: min(size, HeaderRepair.prefixBytes))
            try Self.readPrefix(path, into: &prefix)
            if HeaderRepair.isSound(prefix) {
                headerRebuilt = false
            } else {
                guard let header = HeaderRepair.header(forPrefix: prefix, fileSize: size, wal: wal) else {
                    let what = prefix.allSatisfy({ $0 == 0 }) ? "it holds only zeros" : "no SQLite page can be found in it"
                    throw StoreError.damaged(path: original, reason: "nothing is readable: \(what)")
                }
                let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
                try handle.write(contentsOf: Data(header))
                try handle.close()
                headerRebuilt = true
            }
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            if let error = error as? StoreError { throw error }
            throw StoreError.directory(path: directory, reason: "cannot copy \(original) to read it: \(error.localizedDescription)")
        }
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func copy(_ source: String, to destination: String) throws -> Int {
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        _ = chmod(destination, 0o600)
        let attributes = try FileManager.default.attributesOfItem(atPath: destination)
        return (attributes[.size] as? NSNumber)?.intValue ?? 0
    }

    private static func readPrefix(_ path: String, into prefix: inout [UInt8]) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        let data = try handle.read(upToCount: prefix.count) ?? Data()
        prefix = Array(data)
    }
}

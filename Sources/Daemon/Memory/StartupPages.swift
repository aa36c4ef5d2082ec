#if canImport(Glibc)
import Glibc
#endif

/// Lets go of the code pages the daemon needed only to start.
///
/// Start-up runs code that a running daemon never runs again: argument parsing, the TOML
/// parser and libstdc++ behind it, Foundation's and the store's initialisation, the token
/// check. Linux maps file-backed code 64 KiB around every page fault, so those few calls
/// leave about 16 MB of code mapped, counted in RSS for the months the daemon runs (measured:
/// 37 MB RSS under load, 21 MB once these pages go; `scripts/bench-daemon.py`).
///
/// `MADV_DONTNEED` on a private file mapping that holds no anonymous (copied-on-write) page
/// only drops page-table entries: the file's pages stay in the page cache, and the next call
/// into one maps it back from there. Only executable mappings with no anonymous page are
/// released, so relocated data and anything a debugger patched are never touched.
/// `readOnlyData` adds the read-only data mappings (`r--p`: constant tables, ICU's data,
/// unwind tables) under the same rule; `MemoryTrimService` releases both every few minutes.
public enum StartupPages {
    /// One mapping that may be released.
    public struct Mapping: Sendable, Hashable {
        public var start: UInt
        public var end: UInt
        public var residentKiB: Int

        public init(start: UInt, end: UInt, residentKiB: Int) {
            self.start = start
            self.end = end
            self.residentKiB = residentKiB
        }
    }

    /// Releases every candidate of `/proc/self/smaps`; returns the KiB that were resident in them.
    @discardableResult
    public static func release(smapsPath: String = "/proc/self/smaps", readOnlyData: Bool = false) -> Int {
        guard let text = readFile(smapsPath) else { return 0 }
        var released = 0
        for mapping in candidates(smaps: text, readOnlyData: readOnlyData) {
            guard let address = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            if madvise(address, Int(mapping.end - mapping.start), MADV_DONTNEED) == 0 {
                released += mapping.residentKiB
            }
        }
        return released
    }

    /// The executable (and with `readOnlyData`, the read-only) file-backed, private mappings of
    /// `smaps` with no anonymous page.
    public static func candidates(smaps: String, readOnlyData: Bool = false) -> [Mapping] {
        var result: [Mapping] = []
        var current: (mapping: Mapping, eligible: Bool, anonymous: Int?)?
        func finish() {
            if let current, current.eligible, current.anonymous == 0 { result.append(current.mapping) }
        }
        for line in smaps.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if let dash = first.firstIndex(of: "-"), !first.hasSuffix(":") {
                finish()
                current = nil
                guard fields.count >= 5,
                    let start = UInt(first[first.startIndex..<dash], radix: 16),
                    let end = UInt(first[first.index(after: dash)...], radix: 16), end > start
                else { continue }
                let inode = fields[4]
                let eligible = (fields[1] == "r-xp" || (readOnlyData && fields[1] == "r--p")) && inode != "0"
                current = (Mapping(start: start, end: end, residentKiB: 0), eligible, nil)
            } else if fields.count >= 2, let value = Int(fields[1]) {
                if first == "Rss:" {
                    current?.mapping.residentKiB = value
                } else if first == "Anonymous:" {
                    current?.anonymous = value
                }
            }
        }
        finish()
        return result
    }

    private static func readFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

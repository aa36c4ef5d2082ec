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
        guard let bytes = readFile(smapsPath) else { return 0 }
        var released = 0
        for mapping in candidates(smaps: bytes, readOnlyData: readOnlyData) {
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
        candidates(smaps: Array(smaps.utf8), readOnlyData: readOnlyData)
    }

    /// The same over the file's bytes. It runs every minute in the daemon (``ResidentMemory``),
    /// over some 15 000 lines, so it reads fields where they lie instead of splitting strings
    /// (which made a trim cost about 7 ms of CPU, measured with `perf`).
    static func candidates(smaps bytes: [UInt8], readOnlyData: Bool) -> [Mapping] {
        var result: [Mapping] = []
        var current: (mapping: Mapping, eligible: Bool, anonymous: Int?)?
        func finish() {
            if let current, current.eligible, current.anonymous == 0 { result.append(current.mapping) }
        }
        let space = UInt8(ascii: " ")
        var lineStart = 0
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            // Fields 0, 1 and 4 are all that is read: range and permissions and inode of a
            // mapping, or a key and its value.
            var fieldCount = 0
            var field0 = 0..<0
            var field1 = 0..<0
            var field4 = 0..<0
            var index = lineStart
            while index < lineEnd, fieldCount < 5 {
                while index < lineEnd, bytes[index] == space { index += 1 }
                guard index < lineEnd else { break }
                let fieldStart = index
                while index < lineEnd, bytes[index] != space { index += 1 }
                switch fieldCount {
                case 0: field0 = fieldStart..<index
                case 1: field1 = fieldStart..<index
                case 4: field4 = fieldStart..<index
                default: break
                }
                fieldCount += 1
            }
            lineStart = lineEnd + 1
            guard fieldCount > 0 else { continue }
            if let dash = bytes[field0].firstIndex(of: UInt8(ascii: "-")), bytes[field0.upperBound - 1] != UInt8(ascii: ":") {
                finish()
                current = nil
                guard fieldCount >= 5,
                    let start = number(bytes[field0.lowerBound..<dash], radix: 16),
                    let end = number(bytes[(dash + 1)..<field0.upperBound], radix: 16), end > start
                else { continue }
                let permissions = bytes[field1]
                let anonymousInode = field4.count == 1 && bytes[field4.lowerBound] == UInt8(ascii: "0")
                let eligible = (permissions.elementsEqual("r-xp".utf8) || (readOnlyData && permissions.elementsEqual("r--p".utf8))) && !anonymousInode
                current = (Mapping(start: start, end: end, residentKiB: 0), eligible, nil)
            } else if fieldCount >= 2, let value = number(bytes[field1], radix: 10) {
                let key = bytes[field0]
                if key.elementsEqual("Rss:".utf8) {
                    current?.mapping.residentKiB = Int(value)
                } else if key.elementsEqual("Anonymous:".utf8) {
                    current?.anonymous = Int(value)
                }
            }
        }
        finish()
        return result
    }

    /// Digits only (no sign), at most what a `UInt` holds below `Int.max`; nil otherwise.
    private static func number(_ digits: ArraySlice<UInt8>, radix: UInt) -> UInt? {
        guard !digits.isEmpty, digits.count <= 16 else { return nil }
        var value: UInt = 0
        for byte in digits {
            let digit: UInt
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = UInt(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value * radix + digit
        }
        return value
    }

    static func readFile(_ path: String) -> [UInt8]? {
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
        return bytes
    }
}

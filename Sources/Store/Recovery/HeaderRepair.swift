/// A new 100-byte header for a copy of a database whose header is damaged, so SQLite can read
/// the pages behind it (the first kind of damage `ftms-bridge salvage` meets: the header is
/// what a torn write at offset 0 takes, and SQLite then refuses the file as "not a database").
///
/// Everything in the header is either fixed for this product's files (UTF-8, schema format 4,
/// no auto-vacuum, no reserved bytes) or can be read off the pages: the page size is the one at
/// which the file's pages start like B-tree pages, and the page count is the file's size over
/// it. The freelist is left empty (its pages then read as orphans, which a reader never
/// visits). Only ever applied to a scratch copy: the damaged file is not touched.
enum HeaderRepair {
    static let magic = Array("SQLite format 3\0".utf8)

    /// Whether `header` (the file's first 100 bytes) is a sound SQLite header.
    static func isSound(_ header: [UInt8]) -> Bool {
        guard header.count >= 100, Array(header[0..<16]) == magic else { return false }
        let size = Int(header[16]) << 8 | Int(header[17])
        return size == 1 || (size >= 512 && size <= 32_768 && size & (size - 1) == 0)
    }

    /// How much of a file ``header(forPrefix:fileSize:wal:)`` reads: 64 pages of the largest size.
    static let prefixBytes = 64 * 65_536

    /// The header to put on a file of `fileSize` bytes that begins with `prefix` (at least its
    /// first ``prefixBytes``), or nil when no page size fits it.
    static func header(forPrefix prefix: [UInt8], fileSize: Int, wal: Bool) -> [UInt8]? {
        guard let pageSize = pageSize(prefix: prefix, fileSize: fileSize) else { return nil }
        let pages = UInt32(clamping: fileSize / pageSize)
        var header = [UInt8](repeating: 0, count: 100)
        header.replaceSubrange(0..<16, with: magic)
        let encodedSize = pageSize == 65_536 ? 1 : pageSize
        header[16] = UInt8(encodedSize >> 8)
        header[17] = UInt8(encodedSize & 0xFF)
        // File format versions: 2 reads the WAL beside the copy, 1 is a rollback-journal file.
        header[18] = wal ? 2 : 1
        header[19] = wal ? 2 : 1
        header[21] = 64
        header[22] = 32
        header[23] = 32
        put(1, at: 24, in: &header)  // change counter
        put(pages, at: 28, in: &header)
        put(1, at: 40, in: &header)  // schema cookie
        put(4, at: 44, in: &header)  // schema format
        put(1, at: 56, in: &header)  // UTF-8
        put(1, at: 92, in: &header)  // version-valid-for = change counter: the page count holds
        put(3_040_001, at: 96, in: &header)
        return header
    }

    /// The page size at which most of the first pages after page 1 start with a B-tree page's
    /// type byte (2, 5, 10, 13); a file cut short mid-page keeps its whole pages.
    static func pageSize(prefix: [UInt8], fileSize: Int) -> Int? {
        // Page 1's own B-tree header (the schema table's, at offset 100) must be there.
        guard prefix.count > 100, [5, 13].contains(prefix[100]) else { return nil }
        var best: (size: Int, score: Int)?
        for size in [4096, 1024, 2048, 8192, 16_384, 32_768, 65_536, 512] where fileSize >= 2 * size {
            let pages = min(fileSize / size, prefix.count / size, 64)
            guard pages > 1 else { continue }
            var score = 0
            for page in 1..<pages where [2, 5, 10, 13].contains(prefix[page * size]) { score += 1 }
            if score > (best?.score ?? 0) { best = (size, score) }
        }
        return best?.size
    }

    private static func put(_ value: UInt32, at offset: Int, in header: inout [UInt8]) {
        header[offset] = UInt8(value >> 24)
        header[offset + 1] = UInt8((value >> 16) & 0xFF)
        header[offset + 2] = UInt8((value >> 8) & 0xFF)
        header[offset + 3] = UInt8(value & 0xFF)
    }
}

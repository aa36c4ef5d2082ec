/// Reads table rows straight off the bytes of an SQLite file, page by page, without SQLite and
/// without its B-trees: what salvage falls back on when a damaged page hides rows from every
/// search (the file's first page, an interior page, a file cut short).
///
/// It follows SQLite's documented file format (sqlite.org/fileformat2.html): every page that
/// looks like a table B-tree leaf (type byte 13) has its cell pointers read, each cell its
/// payload size and rowid (varints), its record header (serial types) and values, and the rest
/// of a long payload from its chain of overflow pages. SQLite's `recover` extension works the
/// same way; this one knows only what the store needs (table leaf rows) and which rows are
/// whose is left to the caller, by the rows' shape, since the schema page may be gone.
///
/// Nothing here trusts a byte: every offset is bounds-checked, every count capped, an overflow
/// chain may not revisit a page, and a cell that does not parse is skipped. Garbage in gives
/// no rows, never a trap.
struct PageScanner {
    /// One value of a record, as stored.
    enum Value: Hashable, Sendable {
        case null
        case integer(Int64)
        case real(Double)
        case text([UInt8])
        case blob([UInt8])

        /// The value as a string, when it is valid UTF-8 text.
        var string: String? {
            if case .text(let bytes) = self { String(validating: bytes, as: UTF8.self) } else { nil }
        }

        var int64: Int64? {
            if case .integer(let value) = self { value } else { nil }
        }
    }

    /// One row found on a leaf page.
    struct Row: Hashable, Sendable {
        var page: Int
        var rowid: Int64
        var values: [Value]
    }

    let bytes: [UInt8]
    let pageSize: Int
    /// The page size less the bytes reserved at each page's end (the header's byte 20).
    let usableSize: Int

    /// The largest record header this reads (SQLite's limit on columns is 2000, about as many bytes).
    static let maxHeaderBytes = 16_384
    /// The longest payload it follows (a summary is a few KB; this bounds what garbage can ask).
    static let maxPayloadBytes = 16 << 20

    init(bytes: [UInt8], pageSize: Int, reservedBytes: Int = 0) {
        self.bytes = bytes
        self.pageSize = pageSize
        usableSize = pageSize - reservedBytes
    }

    var pageCount: Int { pageSize > 0 ? bytes.count / pageSize : 0 }

    /// Every row of every table leaf page in the file, in page order.
    func rows() -> [Row] {
        guard pageSize >= 512, usableSize >= 480 else { return [] }
        var rows: [Row] = []
        for page in 1...max(1, pageCount) where page <= pageCount {
            rows += leafRows(page: page, at: (page - 1) * pageSize)
        }
        return rows
    }

    /// The rows of the page whose image starts at `base` in ``bytes`` (a page of the file, or a
    /// frame of a WAL read as one), when it is a table leaf.
    func leafRows(page: Int, at base: Int) -> [Row] {
        // Page 1 starts with the file's 100-byte header; its B-tree header follows.
        let header = base + (page == 1 ? 100 : 0)
        guard base >= 0, base + pageSize <= bytes.count, header + 8 <= base + pageSize, bytes[header] == 13 else { return [] }
        let cells = Int(bytes[header + 3]) << 8 | Int(bytes[header + 4])
        // Each pointer takes 2 bytes and each cell at least 2: a page holds fewer.
        guard cells > 0, cells <= pageSize / 4, header + 8 + 2 * cells <= base + usableSize else { return [] }
        var rows: [Row] = []
        for index in 0..<cells {
            let pointer = header + 8 + 2 * index
            let offset = Int(bytes[pointer]) << 8 | Int(bytes[pointer + 1])
            guard offset >= 8, offset < usableSize, let row = cell(page: page, base: base, at: base + offset) else { continue }
            rows.append(row)
        }
        return rows
    }

    /// One table leaf cell: payload size, rowid, the local payload, its overflow.
    private func cell(page: Int, base: Int, at start: Int) -> Row? {
        let end = base + usableSize
        guard let (size, sizeLength) = Self.varint(bytes, at: start, end: end), size >= 0, size <= Int64(Self.maxPayloadBytes),
              let (rowid, rowidLength) = Self.varint(bytes, at: start + sizeLength, end: end)
        else { return nil }
        let payloadSize = Int(size)
        let local = localSize(payloadSize)
        let payloadStart = start + sizeLength + rowidLength
        guard payloadStart + local <= end else { return nil }
        var payload = Array(bytes[payloadStart..<(payloadStart + local)])
        if local < payloadSize {
            guard payloadStart + local + 4 <= end, let rest = overflow(from: Self.uint32(bytes, at: payloadStart + local), count: payloadSize - local) else {
                return nil
            }
            payload += rest
        }
        guard let values = Self.record(payload) else { return nil }
        return Row(page: page, rowid: rowid, values: values)
    }

    /// How much of a payload of `size` bytes a table leaf keeps on its page (fileformat2 §1.6).
    func localSize(_ size: Int) -> Int {
        let maxLocal = usableSize - 35
        guard size > maxLocal else { return size }
        let minLocal = (usableSize - 12) * 32 / 255 - 23
        let kept = minLocal + (size - minLocal) % (usableSize - 4)
        return kept <= maxLocal ? kept : minLocal
    }

    /// `count` bytes from the chain of overflow pages starting at `first`; nil when the chain
    /// leaves the file, loops, or ends early.
    private func overflow(from first: UInt32, count: Int) -> [UInt8]? {
        var result: [UInt8] = []
        result.reserveCapacity(count)
        var next = Int(first)
        var visited = Set<Int>()
        while result.count < count {
            guard next >= 1, next <= pageCount, visited.insert(next).inserted else { return nil }
            let base = (next - 1) * pageSize
            let take = min(usableSize - 4, count - result.count)
            result += bytes[(base + 4)..<(base + 4 + take)]
            next = Int(Self.uint32(bytes, at: base))
        }
        return result
    }

    /// A record's values (fileformat2 §2.1): the header's size and serial types, then bodies.
    static func record(_ payload: [UInt8]) -> [Value]? {
        guard let (headerSize, headerLength) = varint(payload, at: 0, end: payload.count),
              headerSize >= Int64(headerLength), headerSize <= Int64(min(payload.count, maxHeaderBytes))
        else { return nil }
        var types: [Int64] = []
        var offset = headerLength
        while offset < Int(headerSize) {
            guard let (type, length) = varint(payload, at: offset, end: Int(headerSize)) else { return nil }
            types.append(type)
            offset += length
        }
        var body = Int(headerSize)
        var values: [Value] = []
        values.reserveCapacity(types.count)
        for type in types {
            guard let length = bodyLength(type), body + length <= payload.count else { return nil }
            let field = payload[body..<(body + length)]
            switch type {
            case 0: values.append(.null)
            case 1...6: values.append(.integer(signed(field)))
            case 7: values.append(.real(Double(bitPattern: UInt64(bitPattern: signed(field)))))
            case 8: values.append(.integer(0))
            case 9: values.append(.integer(1))
            default: values.append(type & 1 == 0 ? .blob(Array(field)) : .text(Array(field)))
            }
            body += length
        }
        return values
    }

    /// Bytes of a value of serial type `type`; nil for the reserved types 10 and 11.
    static func bodyLength(_ type: Int64) -> Int? {
        switch type {
        case 0, 8, 9: 0
        case 1: 1
        case 2: 2
        case 3: 3
        case 4: 4
        case 5: 6
        case 6, 7: 8
        case 10, 11: nil
        default: type > Int64(maxPayloadBytes) * 2 + 13 || type < 0 ? nil : Int((type - 12) / 2)
        }
    }

    /// A big-endian two's-complement integer of 1 to 8 bytes.
    private static func signed(_ field: ArraySlice<UInt8>) -> Int64 {
        guard let first = field.first else { return 0 }
        var value: UInt64 = first & 0x80 == 0 ? 0 : ~0
        for byte in field { value = value << 8 | UInt64(byte) }
        return Int64(bitPattern: value)
    }

    /// SQLite's varint at `offset` (1 to 9 bytes, high bit first; the ninth byte whole), and
    /// its length; nil when it would run past `end`.
    static func varint(_ bytes: [UInt8], at offset: Int, end: Int) -> (Int64, Int)? {
        var value: UInt64 = 0
        for index in 0..<9 {
            let position = offset + index
            guard position >= 0, position < min(end, bytes.count) else { return nil }
            let byte = bytes[position]
            if index == 8 {
                return (Int64(bitPattern: value << 8 | UInt64(byte)), 9)
            }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return (Int64(bitPattern: value), index + 1) }
        }
        return nil
    }

    static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        guard offset >= 0, offset + 4 <= bytes.count else { return 0 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }
}

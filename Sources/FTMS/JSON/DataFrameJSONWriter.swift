import JSON

/// Indoor Bike Data or Rower Data notification bytes straight to their JSON line, with no
/// ``DataRecord`` in between: the bulk path of `ftms-bridge decode`.
///
/// ``DataRecord/init(kind:decoding:)`` followed by ``DataRecord/writeJSON(into:)`` walks the
/// flag groups once to fill the record and the layout's entries again to print it, branching on
/// every field's presence, format, scale, digit count and range; on `decode`'s random frames
/// those branches are coin flips. Here the flags index two small tables (bits 0–6 and 7–12)
/// whose sum is the mask of present fields and the payload length, so a frame the flags fit is
/// known to be whole before any field is read, and each present field is one unaligned load,
/// one key block, and a branch-free number (``JSONCursor/shortFixedPoint(_:_:)``). The tables
/// live in memory this writer owns, so the per-frame path touches no reference count and no
/// lazily initialised global.
///
/// ``DataRecordJSONLayout`` is the same JSON laid out for a ``DataRecord``'s values, and stays:
/// the daemon prints records, merged from several notifications, not frames, and a writer that
/// walks values and one that walks bytes checking each other is what the tests rely on.
///
/// A frame too short for its flags (or for the flags themselves) is not written: ``write(_:count:into:)``
/// returns false and the caller takes the record path, which reports what was truncated.
/// The record path stays the reference: `DataFrameJSONTests` and the fuzz target compare the
/// two byte for byte over random and fuzzed frames, and `scripts/bench-decode.sh --compare`
/// compares `decode` with an older binary over a million frames per characteristic.
///
/// Copyable for its owner's convenience, but it owns its tables: exactly one copy calls
/// ``deallocate()``.
struct DataFrameJSONWriter {
    /// One field of the layout, in wire order.
    struct Entry {
        let keyStart: UInt16
        let keyLength: UInt8
        let width: UInt8
        /// 32 − 8 × width: a 4-byte load shifted up by this and back down is the field.
        let extractShift: UInt8
        let signed: Bool
        /// `Int32.min` when the field has no "not available" sentinel (no raw value is that).
        let sentinel: Int32
        let plausibleLow: Int32
        /// `high − low`; `UInt32.max` when every value is plausible.
        let plausibleSpan: UInt32
        let number: ShortFixedPoint
    }

    /// Longer than the head; the head is copied, and padded, in a block of this size.
    static let block = 64
    /// Longer than any `,"name":`: keys are copied in blocks of this size (three vector moves).
    static let keyBlock = 48
    /// Slack the frame buffer needs after the frame: a field is read with one 4-byte load.
    static let framePadding = 4

    private let entries: UnsafeMutablePointer<Entry>
    /// For flags bits 0–6 and 7–12: the present entries' mask in bits 0–15 and their bytes in
    /// bits 16–31; the two halves never share an entry, so their sum is the whole frame's.
    private let lowFlags: UnsafeMutablePointer<UInt32>
    private let highFlags: UnsafeMutablePointer<UInt32>
    /// Every entry's `,"name":` back to back, then a block of padding.
    private let keys: UnsafeMutablePointer<UInt8>
    /// `{"characteristic":"…","uuid":"…","flags":`, padded to a block.
    private let head: UnsafeMutablePointer<UInt8>
    private let headLength: Int
    /// `,"more_data":false` and `,"more_data":true`, 32 bytes apart.
    private let moreData: UnsafeMutablePointer<UInt8>
    /// The longest line this writer can produce, plus the slack its block stores need.
    let maximumLength: Int

    init(_ kind: DataRecord.Kind) {
        let layout = kind.layout
        let count = layout.entries.count
        precondition(count <= 16)
        entries = .allocate(capacity: count)
        var keyText: [UInt8] = []
        for (index, entry) in layout.entries.enumerated() {
            let descriptor = entry.field.descriptor
            let key = Array(",\"\(descriptor.jsonName)\":".utf8)
            precondition(key.count < Self.keyBlock)
            guard let number = ShortFixedPoint(descriptor.scale) else {
                preconditionFailure("no data-record field is finer than a hundredth")
            }
            let width = descriptor.format.byteCount
            (entries + index).initialize(to: Entry(
                keyStart: UInt16(keyText.count), keyLength: UInt8(key.count), width: UInt8(width),
                extractShift: UInt8(32 - 8 * width), signed: descriptor.format == .sint16,
                sentinel: descriptor.notAvailable ?? .min,
                plausibleLow: descriptor.plausible?.lowerBound ?? .min,
                plausibleSpan: descriptor.plausible.map { UInt32(bitPattern: $0.upperBound &- $0.lowerBound) } ?? .max,
                number: number))
            keyText += key
        }
        let names = keyText.count
        keyText += [UInt8](repeating: 0, count: Self.block)
        keys = Self.copy(keyText)

        // Which entries each flag bit brings, and their bytes.
        var bitMask = [UInt32](repeating: 0, count: 16)
        for (index, entry) in layout.entries.enumerated() {
            // A sum, not an or: a group's widths add up (the energy triplet is 2 + 2 + 1).
            bitMask[Int(entry.flagBit)] += 1 << UInt32(index) + UInt32(entry.field.descriptor.format.byteCount) << 16
        }
        func table(bits: Range<Int>) -> UnsafeMutablePointer<UInt32> {
            let table = UnsafeMutablePointer<UInt32>.allocate(capacity: 1 << bits.count)
            for value in 0..<(1 << bits.count) {
                var sum: UInt32 = 0
                for bit in bits where RecordLayout.isPresent(flagBit: UInt16(bit), in: UInt16(value << bits.lowerBound)) {
                    sum += bitMask[bit]
                }
                (table + value).initialize(to: sum)
            }
            return table
        }
        lowFlags = table(bits: 0..<7)
        highFlags = table(bits: 7..<13)

        let characteristic = kind.characteristic
        let headText = Array("{\"characteristic\":\"\(characteristic.jsonName)\",\"uuid\":\"\(characteristic.shortUUID)\",\"flags\":".utf8)
        precondition(headText.count <= Self.block)
        headLength = headText.count
        head = Self.copy(headText + [UInt8](repeating: 0, count: Self.block))
        let more = Array(",\"more_data\":false".utf8) + [UInt8](repeating: 0, count: 14)
            + Array(",\"more_data\":true".utf8) + [UInt8](repeating: 0, count: 15)
        precondition(more.count == 64)
        moreData = Self.copy(more)

        // Head, flags, more_data; every field's key and longest value; the implausible list;
        // trailing_bytes and the line's end; then a block of slack for the last block store.
        let fields = names + count * 13
        let implausible = ",\"implausible\":[".utf8.count + names
        maximumLength = Self.block + 8 + 32 + fields + implausible + ",\"trailing_bytes\":".utf8.count + 8 + 2 + Self.block
    }

    func deallocate() {
        for pointer in [lowFlags, highFlags] { pointer.deallocate() }
        for pointer in [keys, head, moreData] { pointer.deallocate() }
        entries.deallocate()
    }

    private static func copy(_ bytes: [UInt8]) -> UnsafeMutablePointer<UInt8> {
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
        pointer.initialize(from: bytes, count: bytes.count)
        return pointer
    }

    /// Writes the frame's JSON line (with its `\n`) and returns true, or writes nothing and
    /// returns false when the frame is shorter than its flags say. The
    /// ``framePadding`` bytes after the frame must be readable.
    @inline(__always)
    func write(_ frame: UnsafePointer<UInt8>, count: Int, into json: inout JSONBuffer) -> Bool {
        guard count >= 2 else { return false }
        let flags = UInt32(frame[0]) | UInt32(frame[1]) << 8
        let layout = lowFlags[Int(flags & 0x7F)] &+ highFlags[Int(flags &>> 7 & 0x3F)]
        let needed = 2 &+ Int(layout &>> 16)
        guard count >= needed else { return false }
        let trailing = count &- needed
        json.appendReserved(maximum: maximumLength) { out in
            out.block(head, count: headLength, blockSize: Self.block)
            out.shortDigits(flags)
            let more = Int(flags & 1)
            out.block(moreData + 32 &* more, count: 18 &- more, blockSize: 32)
            var present = layout & 0xFFFF
            var offset = 2
            var implausible: UInt32 = 0
            while present != 0 {
                let index = present.trailingZeroBitCount
                present &= present &- 1
                let entry = entries[index]
                let word = UInt32(littleEndian: UnsafeRawPointer(frame + offset).loadUnaligned(as: UInt32.self))
                offset &+= Int(entry.width)
                let shift = UInt32(entry.extractShift)
                let high = word &<< shift
                let raw = entry.signed ? Int32(bitPattern: high) &>> Int32(shift) : Int32(bitPattern: high &>> shift)
                out.block(keys + Int(entry.keyStart), count: Int(entry.keyLength), blockSize: Self.keyBlock)
                if raw == entry.sentinel {
                    out.text("null")
                    continue
                }
                let outside: UInt32 = UInt32(bitPattern: raw &- entry.plausibleLow) > entry.plausibleSpan ? 1 : 0
                implausible |= outside &<< UInt32(index)
                out.shortFixedPoint(raw, entry.number)
            }
            if implausible != 0 {
                out.text(",\"implausible\":[")
                repeat {
                    let entry = entries[implausible.trailingZeroBitCount]
                    implausible &= implausible &- 1
                    // The key without its leading comma and trailing colon is the quoted name;
                    // the colon after it becomes the list's comma.
                    out.block(keys + Int(entry.keyStart) + 1, count: Int(entry.keyLength) - 1, blockSize: Self.keyBlock)
                    out.overwriteLast(UInt8(ascii: ","))
                } while implausible != 0
                out.overwriteLast(UInt8(ascii: "]"))
            }
            if trailing > 0 {
                out.text(",\"trailing_bytes\":")
                out.shortDigits(UInt32(truncatingIfNeeded: trailing))
            }
            out.byte(UInt8(ascii: "}"))
            out.byte(UInt8(ascii: "\n"))
        }
        return true
    }
}

public import JSON

/// A data characteristic's JSON, precomputed: the opening bytes, each field's `,"name":` and
/// what its value needs (scale, sentinel, plausible range), in wire order.
///
/// ``DataRecord/writeJSON(into:)`` reserves ``maximumLength`` once and copies these pieces
/// with plain stores, instead of rebuilding each field's descriptor and checking capacity for
/// every key and digit: that was most of `ftms-bridge decode`'s time. Keys are copied as
/// fixed 48-byte blocks (the blob is padded, the reservation has the slack), which the
/// compiler turns into a few vector moves instead of a `memmove` call per key.
struct DataRecordJSONLayout: Sendable {
    /// One field, 16 bytes, so the walk over a record touches one cache line for four fields.
    struct Entry: Sendable {
        let fieldNumber: UInt8
        let keyLength: UInt8
        let scale: Scale
        let hasSentinel: Bool
        /// Where `,"name":` sits in ``keys``.
        let keyStart: UInt16
        let sentinel: Int32
        /// `plausibleLow > plausibleHigh` when every value is plausible.
        let plausibleLow: Int32
        let plausibleHigh: Int32
    }

    /// Longer than any `,"name":`; keys are copied in blocks of this size.
    static let keyBlock = 48

    /// `{"characteristic":"…","uuid":"…"`.
    let head: [UInt8]
    /// Every entry's `,"name":`, back to back, then ``keyBlock`` bytes of padding.
    let keys: [UInt8]
    let entries: [Entry]
    /// The longest JSON a record of this kind can print (every field, every one implausible,
    /// an 11-byte-plus-sign value in each, both length findings), plus a key block of slack.
    let maximumLength: Int

    init(_ kind: DataRecord.Kind) {
        let characteristic = kind.characteristic
        head = Array("{\"characteristic\":\"\(characteristic.jsonName)\",\"uuid\":\"\(characteristic.shortUUID)\"".utf8)
        var keys: [UInt8] = []
        var entries: [Entry] = []
        for entry in kind.layout.entries {
            let descriptor = entry.field.descriptor
            let key = Array(",\"\(descriptor.jsonName)\":".utf8)
            precondition(key.count < Self.keyBlock)
            entries.append(Entry(
                fieldNumber: UInt8(entry.field.rawValue), keyLength: UInt8(key.count), scale: descriptor.scale,
                hasSentinel: descriptor.notAvailable != nil, keyStart: UInt16(keys.count),
                sentinel: descriptor.notAvailable ?? 0,
                plausibleLow: descriptor.plausible?.lowerBound ?? 1, plausibleHigh: descriptor.plausible?.upperBound ?? 0))
            keys += key
        }
        let names = keys.count
        keys += [UInt8](repeating: 0, count: Self.keyBlock)
        self.keys = keys
        self.entries = entries
        let flags = ",\"flags\":65535,\"more_data\":false".utf8.count
        let findings = ",\"truncated\":true,\"trailing_bytes\":4294967295}".utf8.count
        let implausible = ",\"implausible\":[]".utf8.count + names
        maximumLength = head.count + flags + names + 16 * entries.count + implausible + findings + Self.keyBlock
    }

    static let indoorBikeData = DataRecordJSONLayout(.indoorBikeData)
    static let rowerData = DataRecordJSONLayout(.rowerData)
}

extension DataRecord {
    public func writeJSON(into json: inout JSONBuffer) {
        let layout = kind == .indoorBikeData ? DataRecordJSONLayout.indoorBikeData : DataRecordJSONLayout.rowerData
        json.appendReserved(maximum: layout.maximumLength) { out in
            layout.head.withUnsafeBufferPointer { head in
                if let start = head.baseAddress { out.bytes(start, count: head.count) }
            }
            if let flags {
                out.text(",\"flags\":")
                out.digits(UInt32(flags))
                out.text(moreData ? ",\"more_data\":true" : ",\"more_data\":false")
            }
            layout.keys.withUnsafeBufferPointer { keyBuffer in
                layout.entries.withUnsafeBufferPointer { entries in
                    guard let keys = keyBuffer.baseAddress else { return }
                    // Which entries are present, by entry index, without a branch per field.
                    var present: UInt32 = 0
                    for index in entries.indices {
                        present |= (values.presence >> UInt32(entries[index].fieldNumber) & 1) << UInt32(index)
                    }
                    var implausible: UInt32 = 0
                    var remaining = present
                    while remaining != 0 {
                        let index = remaining.trailingZeroBitCount
                        remaining &= remaining &- 1
                        let entry = entries[index]
                        let raw = values.raw[Int(entry.fieldNumber)]
                        out.block(keys + Int(entry.keyStart), count: Int(entry.keyLength), blockSize: DataRecordJSONLayout.keyBlock)
                        if entry.hasSentinel, raw == entry.sentinel {
                            out.text("null")
                            continue
                        }
                        out.fixedPoint(raw, scale: entry.scale)
                        if entry.plausibleLow <= entry.plausibleHigh, raw < entry.plausibleLow || raw > entry.plausibleHigh {
                            implausible |= 1 << UInt32(index)
                        }
                    }
                    guard implausible != 0 else { return }
                    out.text(",\"implausible\":[")
                    var first = true
                    while implausible != 0 {
                        let entry = entries[implausible.trailingZeroBitCount]
                        implausible &= implausible &- 1
                        if !first { out.byte(UInt8(ascii: ",")) }
                        // The key without its leading comma and trailing colon is the quoted name.
                        out.bytes(keys + Int(entry.keyStart) + 1, count: Int(entry.keyLength) - 2)
                        first = false
                    }
                    out.byte(UInt8(ascii: "]"))
                }
            }
            if truncated { out.text(",\"truncated\":true") }
            if trailingBytes > 0 {
                out.text(",\"trailing_bytes\":")
                out.digits(UInt32(clamping: trailingBytes))
            }
            out.byte(UInt8(ascii: "}"))
        }
    }
}

/// Rebuilds L2CAP PDUs from HCI ACL fragments, per link and direction.
///
/// A PDU longer than the controller's ACL buffer arrives as a start fragment (packet boundary
/// flag 0b00 or 0b10, carrying the 4-byte L2CAP header and its length) followed by
/// continuations (0b01). Only fragmented PDUs touch this type's storage: a PDU that fits one
/// packet is handed back as a range into the file, with no copy.
struct L2CAPReassembler {
    private var partial: [UInt64: [UInt8]] = [:]
    /// Fragments thrown away: continuations with no start, and starts cut off by a new start.
    private(set) var dropped = 0

    enum Outcome {
        /// A whole PDU (L2CAP header included) lies in the packet itself.
        case inPlace(Range<Int>)
        /// A whole PDU was reassembled; here it is.
        case reassembled([UInt8])
        case incomplete
    }

    /// `payload` is the ACL payload's range in `file`.
    mutating func add(
        _ payload: Range<Int>, boundary: UInt16, key: UInt64, in file: UnsafeRawBufferPointer
    ) -> Outcome {
        if boundary == 0b01 {
            guard var buffer = partial.removeValue(forKey: key) else {
                dropped += 1
                return .incomplete
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: file[payload]))
            return finish(buffer, key: key)
        }
        if !partial.isEmpty, partial.removeValue(forKey: key) != nil { dropped += 1 }
        if payload.count >= 4 {
            let needed = Int(LittleEndian.uint16(file, at: payload.lowerBound)) + 4
            if payload.count >= needed { return .inPlace(payload.lowerBound..<payload.lowerBound + needed) }
        }
        return finish(Array(UnsafeRawBufferPointer(rebasing: file[payload])), key: key)
    }

    private mutating func finish(_ buffer: [UInt8], key: UInt64) -> Outcome {
        guard buffer.count >= 4 else {
            partial[key] = buffer
            return .incomplete
        }
        let needed = Int(UInt16(buffer[0]) | UInt16(buffer[1]) << 8) + 4
        guard buffer.count >= needed else {
            partial[key] = buffer
            return .incomplete
        }
        return .reassembled(buffer.count == needed ? buffer : Array(buffer.prefix(needed)))
    }

    /// A link ended or was replaced: its half-built PDUs can never complete.
    mutating func forget(_ link: LinkID) {
        guard !partial.isEmpty else { return }
        for direction in [HCIDirection.sent, .received] where partial.removeValue(forKey: link.key(direction)) != nil {
            dropped += 1
        }
    }
}

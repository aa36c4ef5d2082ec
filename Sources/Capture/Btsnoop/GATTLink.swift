import FTMS

/// One LE link's ATT bearer as the capture saw it: the handle → UUID map its discovery
/// built, and the requests still waiting for their responses.
///
/// ATT responses do not repeat the handle they answer, so a Read Response only means
/// something next to the Read Request before it; ATT allows one outstanding request per
/// direction, which makes "the last request the other side sent" exact.
struct GATTLink: Sendable {
    var peer: BluetoothAddress?
    var attributes = AttributeTable()
    /// Primary services discovered (Read By Group Type), start handle and UUID.
    private(set) var services: [(start: UInt16, uuid: AttributeUUID)] = []
    /// Set when discovery finds a bike or rower data characteristic (contract §2's type fallback).
    private(set) var machineType: MachineType?

    private var pendingRead = InlineArray<2, UInt16?>(repeating: nil)
    private var pendingTypeRequest = InlineArray<2, AttributeUUID?>(repeating: nil)

    init(peer: BluetoothAddress?, attributes: AttributeTable = AttributeTable()) {
        self.peer = peer
        self.attributes = attributes
    }

    /// An attribute value crossing the link: the op, the handle it belongs to and the
    /// value's range within the PDU.
    struct Access {
        let operation: AttributeOperation
        let handle: UInt16
        let value: Range<Int>
    }

    enum Outcome {
        case access(Access)
        /// Handle Multiple Value Notification (0x23): several values in one PDU, in order.
        case accesses([Access])
        /// Discovery added to ``attributes``.
        case discovered
        case nothing
    }

    private static let characteristicDeclaration = AttributeUUID(short: 0x2803)

    /// Interprets one ATT PDU travelling in `direction`. Malformed PDUs are ignored: a capture
    /// is evidence, and one bad packet should not hide the rest.
    mutating func interpret(_ pdu: UnsafeRawBufferPointer, direction: HCIDirection) -> Outcome {
        guard let opcode = pdu.first else { return .nothing }
        let count = pdu.count
        switch opcode {
        case 0x1B, 0x1D, 0x12, 0x52:  // notification, indication, write request, write command
            guard count >= 3 else { return .nothing }
            let operation: AttributeOperation =
                switch opcode {
                case 0x1B: .notify
                case 0x1D: .indicate
                default: .write
                }
            return .access(Access(operation: operation, handle: LittleEndian.uint16(pdu, at: 1), value: 3..<count))
        case 0x23:  // handle multiple value notification: (handle, length, value) repeated
            var accesses: [Access] = []
            var offset = 1
            while offset + 4 <= count {
                let length = Int(LittleEndian.uint16(pdu, at: offset + 2))
                guard offset + 4 + length <= count else { break }
                accesses.append(Access(operation: .notify, handle: LittleEndian.uint16(pdu, at: offset), value: offset + 4..<offset + 4 + length))
                offset += 4 + length
            }
            return accesses.isEmpty ? .nothing : .accesses(accesses)
        case 0xD2:  // signed write command: the value is followed by a 12-byte signature
            guard count >= 15 else { return .nothing }
            return .access(Access(operation: .write, handle: LittleEndian.uint16(pdu, at: 1), value: 3..<count - 12))
        case 0x0A:  // read request
            guard count >= 3 else { return .nothing }
            pendingRead[direction.rawValue] = LittleEndian.uint16(pdu, at: 1)
        case 0x0B:  // read response
            guard let handle = pendingRead[direction.opposite.rawValue] else { return .nothing }
            pendingRead[direction.opposite.rawValue] = nil
            return .access(Access(operation: .read, handle: handle, value: 1..<count))
        case 0x01:  // error response: whatever the other side asked is over
            pendingRead[direction.opposite.rawValue] = nil
            pendingTypeRequest[direction.opposite.rawValue] = nil
        case 0x08:  // read by type request: remember what type was asked for
            guard count == 7 || count == 21 else { return .nothing }
            pendingTypeRequest[direction.rawValue] = AttributeUUID.little(
                endian: UnsafeRawBufferPointer(rebasing: pdu[5..<count]))
        case 0x09:
            let requested = pendingTypeRequest[direction.opposite.rawValue]
            pendingTypeRequest[direction.opposite.rawValue] = nil
            return characteristicDeclarations(pdu, requested: requested)
        case 0x11:
            return primaryServices(pdu)
        case 0x05:
            return descriptors(pdu)
        default:
            break
        }
        return .nothing
    }

    /// Read By Type Response to a 0x2803 request: handle, properties, value handle, UUID.
    /// When the capture missed the request, entry lengths 7 and 21 can only be declarations.
    private mutating func characteristicDeclarations(
        _ pdu: UnsafeRawBufferPointer, requested: AttributeUUID?
    ) -> Outcome {
        guard pdu.count >= 2 else { return .nothing }
        let length = Int(pdu[1])
        guard length == 7 || length == 21, requested == nil || requested == Self.characteristicDeclaration else {
            return .nothing
        }
        var offset = 2
        while offset + length <= pdu.count {
            let declaration = LittleEndian.uint16(pdu, at: offset)
            let valueHandle = LittleEndian.uint16(pdu, at: offset + 3)
            if let uuid = AttributeUUID.little(endian: UnsafeRawBufferPointer(rebasing: pdu[offset + 5..<offset + length])) {
                attributes[declaration] = Self.characteristicDeclaration
                learn(valueHandle, uuid)
            }
            offset += length
        }
        return .discovered
    }

    /// Read By Group Type Response: start handle, end handle, service UUID.
    private mutating func primaryServices(_ pdu: UnsafeRawBufferPointer) -> Outcome {
        guard pdu.count >= 2 else { return .nothing }
        let length = Int(pdu[1])
        guard length == 6 || length == 20 else { return .nothing }
        var offset = 2
        while offset + length <= pdu.count {
            if let uuid = AttributeUUID.little(endian: UnsafeRawBufferPointer(rebasing: pdu[offset + 4..<offset + length])) {
                services.append((LittleEndian.uint16(pdu, at: offset), uuid))
            }
            offset += length
        }
        return .discovered
    }

    /// Find Information Response: handle and type of every attribute in a range (descriptors
    /// such as the CCCD 0x2902, and values too).
    private mutating func descriptors(_ pdu: UnsafeRawBufferPointer) -> Outcome {
        guard pdu.count >= 2, pdu[1] == 1 || pdu[1] == 2 else { return .nothing }
        let length = pdu[1] == 1 ? 4 : 18
        var offset = 2
        while offset + length <= pdu.count {
            let handle = LittleEndian.uint16(pdu, at: offset)
            if let uuid = AttributeUUID.little(endian: UnsafeRawBufferPointer(rebasing: pdu[offset + 2..<offset + length])) {
                learn(handle, uuid)
            }
            offset += length
        }
        return .discovered
    }

    private mutating func learn(_ handle: UInt16, _ uuid: AttributeUUID) {
        attributes[handle] = uuid
        if machineType == nil { machineType = MachineType(dataCharacteristic: uuid) }
    }
}

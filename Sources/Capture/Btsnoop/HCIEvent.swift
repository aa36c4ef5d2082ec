/// The HCI events that matter to a capture: links coming and going, and advertising (for
/// the machine's name).
enum HCIEvent {
    case connected(handle: UInt16, peer: BluetoothAddress)
    case disconnected(handle: UInt16)
    /// LE (Extended) Advertising Report parameters, from the subevent code on.
    case advertising(extended: Bool, Range<Int>)
    case other

    /// `range` starts at the event code.
    static func parse(_ range: Range<Int>, in file: UnsafeRawBufferPointer) -> HCIEvent {
        guard range.count >= 2 else { return .other }
        let code = file[range.lowerBound]
        let parameters = range.lowerBound + 2..<min(range.upperBound, range.lowerBound + 2 + Int(file[range.lowerBound + 1]))
        let base = parameters.lowerBound
        switch code {
        case 0x05:  // Disconnection Complete: status, handle, reason
            guard parameters.count >= 4, file[base] == 0 else { return .other }
            return .disconnected(handle: LittleEndian.uint16(file, at: base + 1) & 0x0FFF)
        case 0x3E:  // LE Meta
            guard let subevent = parameters.first.map({ file[$0] }) else { return .other }
            switch subevent {
            case 0x01, 0x0A, 0x29:
                // LE (Enhanced) Connection Complete: status, handle, role, peer address type, peer address
                guard parameters.count >= 12, file[base + 1] == 0 else { return .other }
                return .connected(
                    handle: LittleEndian.uint16(file, at: base + 2) & 0x0FFF,
                    peer: BluetoothAddress(littleEndian: file, at: base + 6))
            case 0x02: return .advertising(extended: false, parameters)
            case 0x0D: return .advertising(extended: true, parameters)
            default: return .other
            }
        default:
            return .other
        }
    }
}

/// The names devices advertised (AD types 0x09 complete, 0x08 shortened local name), by
/// address, so the header can name the machine the capture connected to.
struct AdvertisedNames {
    private var names: [BluetoothAddress: [UInt8]] = [:]
    private var complete: Set<BluetoothAddress> = []

    func name(of address: BluetoothAddress) -> String? {
        names[address].map { String(decoding: $0, as: UTF8.self) }
    }

    /// Walks every report in an advertising event. Reports are laid out one after another
    /// (as BlueZ's monitor reads them); a report that runs past the event ends the walk.
    mutating func record(extended: Bool, _ parameters: Range<Int>, in file: UnsafeRawBufferPointer) {
        guard parameters.count >= 2 else { return }
        var reports = Int(file[parameters.lowerBound + 1])
        var offset = parameters.lowerBound + 2
        let addressOffset = extended ? 3 : 2
        let lengthOffset = extended ? 23 : 8
        while reports > 0, offset + lengthOffset < parameters.upperBound {
            let dataLength = Int(file[offset + lengthOffset])
            let data = offset + lengthOffset + 1..<offset + lengthOffset + 1 + dataLength
            guard data.upperBound <= parameters.upperBound else { return }
            record(BluetoothAddress(littleEndian: file, at: offset + addressOffset), data, in: file)
            offset = data.upperBound + (extended ? 0 : 1)  // the legacy report ends with RSSI
            reports -= 1
        }
    }

    /// AD structures: length, type, data.
    private mutating func record(_ address: BluetoothAddress, _ data: Range<Int>, in file: UnsafeRawBufferPointer) {
        var offset = data.lowerBound
        while offset < data.upperBound {
            let length = Int(file[offset])
            guard length > 0, offset + 1 + length <= data.upperBound else { return }
            let type = file[offset + 1]
            let value = UnsafeRawBufferPointer(rebasing: file[offset + 2..<offset + 1 + length])
            if type == 0x09 || (type == 0x08 && !complete.contains(address)) {
                if names[address].map({ !$0.elementsEqual(value) }) ?? true { names[address] = Array(value) }
                if type == 0x09 { complete.insert(address) }
            }
            offset += 1 + length
        }
    }
}

/// Which way a packet crossed the host–controller boundary.
enum HCIDirection: Int {
    /// Host to controller: what the recording side sent.
    case sent = 0
    /// Controller to host: what the recording side received.
    case received = 1

    var opposite: HCIDirection { self == .sent ? .received : .sent }
}

/// The part of a btsnoop record this reader acts on, after the datalink's framing is undone.
enum HCIPacket {
    /// ACL data: the range of the HCI ACL packet (handle/flags, length, payload).
    case acl(controller: UInt16, direction: HCIDirection, Range<Int>)
    /// An HCI event: the range from the event code on.
    case event(controller: UInt16, Range<Int>)
    case ignored

    /// `data` is the record's packet range inside `file`.
    @inline(__always)
    static func classify(
        _ datalink: BtsnoopDatalink, flags: UInt32, data: Range<Int>, in file: UnsafeRawBufferPointer
    ) -> HCIPacket {
        switch datalink {
        case .h4:
            guard let type = data.first.map({ file[$0] }) else { return .ignored }
            let rest = data.lowerBound + 1..<data.upperBound
            switch type {
            case 0x02: return .acl(controller: 0, direction: flags & 1 == 0 ? .sent : .received, rest)
            case 0x04: return .event(controller: 0, rest)
            default: return .ignored
            }
        case .hci:
            if flags & 2 != 0 { return flags & 1 != 0 ? .event(controller: 0, data) : .ignored }
            return .acl(controller: 0, direction: flags & 1 == 0 ? .sent : .received, data)
        case .linuxMonitor:
            let controller = UInt16(truncatingIfNeeded: flags >> 16)
            switch flags & 0xFFFF {
            case 3: return .event(controller: controller, data)
            case 4: return .acl(controller: controller, direction: .sent, data)
            case 5: return .acl(controller: controller, direction: .received, data)
            default: return .ignored
            }
        }
    }
}

/// A link, named the way HCI names it: a controller (btmon index) and a connection handle.
struct LinkID: Hashable, Sendable {
    let controller: UInt16
    let handle: UInt16

    /// One key per direction, for reassembly.
    func key(_ direction: HCIDirection) -> UInt64 {
        UInt64(controller) << 17 | UInt64(handle) << 1 | UInt64(direction.rawValue)
    }
}

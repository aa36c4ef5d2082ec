/// Writes btsnoop files for tests, in any of the three datalinks the reader takes, from the
/// HCI/L2CAP/ATT it should find in them. Written from the formats' descriptions, separately from
/// the reader's code, so a misreading in one is unlikely to be mirrored in the other.
struct BtsnoopBuilder {
    enum Datalink: UInt32, CaseIterable {
        case hci = 1001
        case h4 = 1002
        case monitor = 2001
    }

    enum Direction {
        case toController  // "sent" by the host
        case toHost  // "received" by the host
    }

    let datalink: Datalink
    /// The first record's time, in microseconds since year 0: 2026-11-21T08:00:00Z.
    static let origin: Int64 = 0x00DC_DDB3_0F2F_8000 + 1_795_248_000 * 1_000_000
    private(set) var bytes: [UInt8]
    /// The byte offset each record starts at, in order.
    private(set) var recordOffsets: [Int] = []
    var controller: UInt16 = 0

    init(_ datalink: Datalink) {
        self.datalink = datalink
        bytes = Array("btsnoop".utf8) + [0] + Self.bigEndian(UInt32(1)) + Self.bigEndian(datalink.rawValue)
    }

    /// One raw record.
    mutating func record(_ packet: [UInt8], flags: UInt32, at microseconds: Int64, original: Int? = nil) {
        recordOffsets.append(bytes.count)
        bytes += Self.bigEndian(UInt32(original ?? packet.count)) + Self.bigEndian(UInt32(packet.count))
        bytes += Self.bigEndian(flags) + Self.bigEndian(UInt32(0))
        bytes += Self.bigEndian(UInt64(bitPattern: Self.origin + microseconds))
        bytes += packet
    }

    /// An HCI ACL packet, framed for the datalink.
    mutating func aclPacket(
        handle: UInt16, boundary: UInt16, _ payload: [UInt8], _ direction: Direction, at microseconds: Int64,
        snapshot: Int? = nil
    ) {
        let header = Self.littleEndian(handle | boundary << 12) + Self.littleEndian(UInt16(payload.count))
        let received = direction == .toHost
        framed(
            header + payload, h4Type: 0x02, flags: received ? 1 : 0, monitorOpcode: received ? 5 : 4, at: microseconds,
            snapshot: snapshot)
    }

    /// Frames an HCI packet as the datalink does: an H4 type byte, direction and
    /// command/event flags, or btmon's index and opcode.
    private mutating func framed(
        _ packet: [UInt8], h4Type: UInt8, flags: UInt32, monitorOpcode: UInt32, at microseconds: Int64, snapshot: Int? = nil
    ) {
        var framed = packet
        var recordFlags = flags
        switch datalink {
        case .h4: framed.insert(h4Type, at: 0)
        case .hci: break
        case .monitor: recordFlags = UInt32(controller) << 16 | monitorOpcode
        }
        let original = framed.count
        if let snapshot { framed = Array(framed.prefix(snapshot)) }
        record(framed, flags: recordFlags, at: microseconds, original: original)
    }

    /// An L2CAP PDU on `cid`, cut into ACL fragments of at most `fragment` bytes.
    mutating func l2cap(
        handle: UInt16, cid: UInt16 = 0x0004, _ payload: [UInt8], _ direction: Direction, at microseconds: Int64,
        fragment: Int = 251
    ) {
        let pdu = Self.littleEndian(UInt16(payload.count)) + Self.littleEndian(cid) + payload
        var start = 0
        while start < pdu.count {
            let end = min(start + fragment, pdu.count)
            aclPacket(
                handle: handle, boundary: start == 0 ? 0b10 : 0b01, Array(pdu[start..<end]), direction,
                at: microseconds)
            start = end
        }
    }

    /// An ATT PDU.
    mutating func att(handle: UInt16, _ pdu: [UInt8], _ direction: Direction, at microseconds: Int64, fragment: Int = 251) {
        l2cap(handle: handle, pdu, direction, at: microseconds, fragment: fragment)
    }

    /// An HCI event, framed for the datalink.
    mutating func event(code: UInt8, _ parameters: [UInt8], at microseconds: Int64) {
        framed([code, UInt8(parameters.count)] + parameters, h4Type: 0x04, flags: 3, monitorOpcode: 3, at: microseconds)
    }

    /// An HCI command (which the reader must pass over).
    mutating func command(_ opcode: UInt16, _ parameters: [UInt8], at microseconds: Int64) {
        let packet = Self.littleEndian(opcode) + [UInt8(parameters.count)] + parameters
        framed(packet, h4Type: 0x01, flags: 2, monitorOpcode: 2, at: microseconds)
    }

    mutating func connectionComplete(
        handle: UInt16, peer: [UInt8], status: UInt8 = 0, enhanced: Bool = false, at microseconds: Int64
    ) {
        var parameters: [UInt8] = [enhanced ? 0x0A : 0x01, status] + Self.littleEndian(handle) + [0x00, 0x00]
        parameters += peer.reversed()
        if enhanced { parameters += [UInt8](repeating: 0, count: 12) }
        parameters += [0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00]
        event(code: 0x3E, parameters, at: microseconds)
    }

    mutating func disconnectionComplete(handle: UInt16, at microseconds: Int64) {
        event(code: 0x05, [0x00] + Self.littleEndian(handle) + [0x13], at: microseconds)
    }

    /// A legacy advertising report carrying flags and a local name.
    mutating func advertisingReport(peer: [UInt8], name: String, complete: Bool = true, at microseconds: Int64) {
        let nameBytes = Array(name.utf8)
        let data: [UInt8] = [0x02, 0x01, 0x06, UInt8(nameBytes.count + 1), complete ? 0x09 : 0x08] + nameBytes
        let report: [UInt8] = [0x00, 0x00] + peer.reversed() + [UInt8(data.count)] + data + [0xC4]
        event(code: 0x3E, [0x02, 0x01] + report, at: microseconds)
    }

    /// An extended advertising report carrying a local name.
    mutating func extendedAdvertisingReport(peer: [UInt8], name: String, at microseconds: Int64) {
        let nameBytes = Array(name.utf8)
        let data: [UInt8] = [UInt8(nameBytes.count + 1), 0x09] + nameBytes
        var report: [UInt8] = [0x13, 0x00, 0x00] + peer.reversed()
        report += [0x01, 0x00, 0xFF, 0x7F, 0xC4, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 6)
        report += [UInt8(data.count)] + data
        event(code: 0x3E, [0x0D, 0x01] + report, at: microseconds)
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        bigEndian(UInt32(value >> 32)) + bigEndian(UInt32(value & 0xFFFF_FFFF))
    }

    static func littleEndian(_ value: UInt16) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8)]
    }
}

/// ATT PDUs by name, so fixtures read like the exchange they record.
enum ATT {
    private static func le(_ value: UInt16) -> [UInt8] { BtsnoopBuilder.littleEndian(value) }

    static func readByGroupTypeRequest(from start: UInt16, to end: UInt16) -> [UInt8] {
        [0x10] + le(start) + le(end) + [0x00, 0x28]
    }

    /// Services as (start, end, 16-bit UUID).
    static func readByGroupTypeResponse(_ services: [(UInt16, UInt16, UInt16)]) -> [UInt8] {
        var pdu: [UInt8] = [0x11, 6]
        for (start, end, uuid) in services { pdu += le(start) + le(end) + le(uuid) }
        return pdu
    }

    static func readByTypeRequest(from start: UInt16, to end: UInt16, type: UInt16 = 0x2803) -> [UInt8] {
        [0x08] + le(start) + le(end) + le(type)
    }

    /// Characteristic declarations as (declaration handle, value handle, 16-bit UUID).
    static func characteristics(_ entries: [(UInt16, UInt16, UInt16)]) -> [UInt8] {
        var pdu: [UInt8] = [0x09, 7]
        for (declaration, value, uuid) in entries { pdu += le(declaration) + [0x12] + le(value) + le(uuid) }
        return pdu
    }

    /// One declaration with a 128-bit UUID, given most significant byte first.
    static func characteristic128(declaration: UInt16, value: UInt16, uuid: [UInt8]) -> [UInt8] {
        [0x09, 21] + le(declaration) + [0x10] + le(value) + uuid.reversed()
    }

    /// Find Information Response, 16-bit format.
    static func descriptors(_ entries: [(UInt16, UInt16)]) -> [UInt8] {
        var pdu: [UInt8] = [0x05, 0x01]
        for (handle, uuid) in entries { pdu += le(handle) + le(uuid) }
        return pdu
    }

    static func readRequest(_ handle: UInt16) -> [UInt8] { [0x0A] + le(handle) }
    static func readResponse(_ value: [UInt8]) -> [UInt8] { [0x0B] + value }
    static func errorResponse(request: UInt8, handle: UInt16) -> [UInt8] { [0x01, request] + le(handle) + [0x0A] }
    static func writeRequest(_ handle: UInt16, _ value: [UInt8]) -> [UInt8] { [0x12] + le(handle) + value }
    static func writeResponse() -> [UInt8] { [0x13] }
    static func writeCommand(_ handle: UInt16, _ value: [UInt8]) -> [UInt8] { [0x52] + le(handle) + value }
    static func notification(_ handle: UInt16, _ value: [UInt8]) -> [UInt8] { [0x1B] + le(handle) + value }
    static func indication(_ handle: UInt16, _ value: [UInt8]) -> [UInt8] { [0x1D] + le(handle) + value }
    /// ATT 0x23: handle, length and value for each, in one PDU (Bluetooth 5.2).
    static func multipleNotification(_ values: [(UInt16, [UInt8])]) -> [UInt8] {
        [0x23] + values.flatMap { le($0.0) + le(UInt16($0.1.count)) + $0.1 }
    }
    static func confirmation() -> [UInt8] { [0x1E] }
}

import FTMS

/// Reads attribute traffic out of a btsnoop file, one event at a time.
///
/// Layers, each undone by hand (see ``CaptureFormat`` for why): the record framing (24-byte
/// big-endian headers, microsecond timestamps since year 0), the datalink's packet framing
/// (``BtsnoopDatalink``), HCI ACL fragments into L2CAP PDUs (``L2CAPReassembler``), and ATT on
/// CID 0x0004 into values, read against the handle → UUID map that discovery in the capture
/// builds (``GATTLink``) or that ``BtsnoopOptions/handleMap`` supplies. LE Connection Complete
/// and Disconnection Complete become connection events.
///
/// Maps outlive their link: a reconnect to the same address reuses the last map, as BlueZ's
/// GATT cache does (it does not rediscover), and a link whose peer the capture never named
/// passes its map to the next one (in practice the same machine reconnecting). A link that
/// began with BlueZ's cache already warm, before any discovery the capture holds (btmon started
/// after the gateway first met the machine), reads its handles against the map the rest of the
/// capture discovers: see ``laterAttribute(_:on:serverIsLocal:)``.
///
/// Time is relative to the first record; ``header`` carries the wall-clock start.
public struct BtsnoopReader: Sendable {
    public let datalink: BtsnoopDatalink
    public let options: BtsnoopOptions
    public private(set) var statistics = BtsnoopStatistics()
    /// The byte offset of the next record.
    public private(set) var offset = BtsnoopFileHeader.size

    private let bytes: [UInt8]
    private var finished = false
    private var origin: Int64?
    private let handleMap: AttributeTable
    private var links = LinkTable()
    private var savedAttributes: [BluetoothAddress: AttributeTable] = [:]
    private var anonymousAttributes = AttributeTable()
    /// The maps of closed links by controller, each once: on the machine's side of a capture,
    /// the machine's own (the server's handles do not depend on which gateway asked).
    private var controllerAttributes: [UInt16: [AttributeTable]] = [:]
    private var reassembler = L2CAPReassembler()
    private var facts = MachineFacts()
    /// Events of one PDU beyond the first (a multiple value notification), handed out next.
    private var queued: [CaptureEvent] = []
    /// The maps the rest of the capture discovers, read once, when a link first needs them.
    private var laterMaps: DiscoveredMaps?
    /// False in the copy that reads ahead for ``laterMaps``, so it does not read ahead itself.
    private var readsAhead = true

    /// btsnoop timestamps count from midnight, 1 January of year 0; this many microseconds later
    /// is the Unix epoch (the constant Wireshark and BlueZ use).
    static let unixEpochMicroseconds: Int64 = 0x00DC_DDB3_0F2F_8000

    /// Checks the file header; records are read by ``next()``.
    public init(bytes: [UInt8], options: BtsnoopOptions = BtsnoopOptions()) throws(CaptureError) {
        self.bytes = bytes
        self.options = options
        handleMap = AttributeTable(options.handleMap)
        datalink = try bytes.withBytes { (file) throws(CaptureError) in try BtsnoopFileHeader.datalink(of: file) }
        facts.address = options.address
    }

    /// What the capture has said about its machine so far: the link's address, the advertised
    /// or read name, Device Information, Feature, the type, the wall-clock start.
    public var header: CaptureHeader { facts.header }

    /// The header as it stands at the end of the capture, without disturbing this reader.
    /// Replay wants the type and Feature before the first sample; reading costs little.
    public func completeHeader() -> CaptureHeader {
        var copy = self
        while (try? copy.next()) != nil {}
        return copy.header
    }

    /// The next event, `nil` at the end, or the error that ended the read (once; `nil` after).
    public mutating func next() throws(CaptureError) -> CaptureEvent? {
        if !queued.isEmpty { return queued.removeFirst() }
        guard !finished else { return nil }
        let bytes = self.bytes
        return try bytes.withBytes { (file) throws(CaptureError) -> CaptureEvent? in
            while offset < file.count {
                let record = offset
                let remaining = file.count - record
                guard remaining >= 24 else {
                    finished = true
                    throw CaptureError(.byteOffset(record), "record header truncated: \(remaining) of 24 bytes")
                }
                let included = Int(BigEndian.uint32(file, at: record + 4))
                guard included <= remaining - 24 else {
                    finished = true
                    throw CaptureError(
                        .byteOffset(record),
                        "record claims \(included) bytes of packet data but only \(remaining - 24) remain")
                }
                let flags = BigEndian.uint32(file, at: record + 8)
                let timestamp = BigEndian.int64(file, at: record + 16)
                offset = record + 24 + included
                statistics.records += 1
                statistics.packetsLostByRecorder = Int(BigEndian.uint32(file, at: record + 12))
                let time = Duration.microseconds(timestamp &- startOfCapture(timestamp))
                if let event = packet(HCIPacket.classify(datalink, flags: flags, data: record + 24..<offset, in: file),
                    at: time, in: file)
                {
                    return event
                }
            }
            finished = true
            return nil
        }
    }

    private mutating func startOfCapture(_ timestamp: Int64) -> Int64 {
        if let origin { return origin }
        origin = timestamp
        facts.start = .microseconds(timestamp &- Self.unixEpochMicroseconds)
        return timestamp
    }

    private mutating func packet(_ packet: HCIPacket, at time: Duration, in file: UnsafeRawBufferPointer)
        -> CaptureEvent?
    {
        switch packet {
        case .acl(let controller, let direction, let range): acl(range, controller, direction, at: time, in: file)
        case .event(let controller, let range): event(range, controller, at: time, in: file)
        case .ignored: nil
        }
    }

    // MARK: ACL and L2CAP

    private mutating func acl(
        _ range: Range<Int>, _ controller: UInt16, _ direction: HCIDirection, at time: Duration,
        in file: UnsafeRawBufferPointer
    ) -> CaptureEvent? {
        guard range.count >= 4 else {
            statistics.malformedPackets += 1
            return nil
        }
        let handleAndFlags = LittleEndian.uint16(file, at: range.lowerBound)
        let length = Int(LittleEndian.uint16(file, at: range.lowerBound + 2))
        guard range.count - 4 >= length else {
            statistics.malformedPackets += 1
            return nil
        }
        let link = LinkID(controller: controller, handle: handleAndFlags & 0x0FFF)
        if let wanted = options.address, let index = links.index(of: link), let peer = links[index].peer, peer != wanted {
            return nil
        }
        let payload = range.lowerBound + 4..<range.lowerBound + 4 + length
        let outcome = reassembler.add(payload, boundary: handleAndFlags >> 12 & 0b11, key: link.key(direction), in: file)
        statistics.droppedFragments = reassembler.dropped
        switch outcome {
        case .inPlace(let pdu):
            return l2cap(UnsafeRawBufferPointer(rebasing: file[pdu]), link, direction, at: time)
        case .reassembled(let pdu):
            return pdu.withUnsafeBytes { l2cap($0, link, direction, at: time) }
        case .incomplete:
            return nil
        }
    }

    /// A whole L2CAP PDU, header included; only the LE ATT channel matters.
    private mutating func l2cap(
        _ pdu: UnsafeRawBufferPointer, _ link: LinkID, _ direction: HCIDirection, at time: Duration
    ) -> CaptureEvent? {
        guard pdu.count > 4 else { return nil }
        let channel = LittleEndian.uint16(pdu, at: 2)
        if channel == Self.leSignallingChannel {
            countEATTRequests(UnsafeRawBufferPointer(rebasing: pdu[4...]))
            return nil
        }
        if channel >= Self.firstDynamicChannel { statistics.dynamicChannelPDUs += 1 }
        guard channel == Self.attributeChannel else { return nil }
        statistics.attributePDUs += 1
        let att = UnsafeRawBufferPointer(rebasing: pdu[4...])
        let index = links.index(of: link) ?? links.add(link, GATTLink(peer: nil, attributes: anonymousAttributes))
        switch links[index].interpret(att, direction: direction) {
        case .access(let access):
            return value(access, in: att, on: index, serverIsLocal: direction == .sent, at: time)
        case .accesses(let accesses):
            var events = accesses.compactMap { value($0, in: att, on: index, serverIsLocal: direction == .sent, at: time) }
            guard !events.isEmpty else { return nil }
            let first = events.removeFirst()
            queued.append(contentsOf: events)
            return first
        case .discovered:
            if facts.dataType == nil { facts.dataType = links[index].machineType }
            return nil
        case .nothing:
            return nil
        }
    }

    static let attributeChannel: UInt16 = 0x0004
    static let leSignallingChannel: UInt16 = 0x0005
    static let firstDynamicChannel: UInt16 = 0x0040
    static let eattPSM: UInt16 = 0x0027

    /// Counts the channels an LE credit-based (0x14) or enhanced credit-based (0x17)
    /// connection request asks for on EATT's PSM, so a replay can say where the traffic went.
    private mutating func countEATTRequests(_ command: UnsafeRawBufferPointer) {
        guard command.count >= 6 else { return }
        let code = command[0]
        let length = Int(LittleEndian.uint16(command, at: 2))
        guard command.count >= 4 + length, length >= 2, LittleEndian.uint16(command, at: 4) == Self.eattPSM else { return }
        switch code {
        case 0x14: statistics.eattChannelsRequested += 1
        case 0x17 where length >= 8: statistics.eattChannelsRequested += (length - 8) / 2
        default: break
        }
    }

    private mutating func value(
        _ access: GATTLink.Access, in att: UnsafeRawBufferPointer, on link: Int, serverIsLocal: Bool, at time: Duration
    ) -> CaptureEvent? {
        if access.operation == .notify || access.operation == .indicate {
            statistics.notificationsPerHandle[access.handle, default: 0] += 1
        }
        guard let uuid = handleMap[access.handle] ?? links[link].attributes[access.handle] ?? laterAttribute(access.handle, on: link, serverIsLocal: serverIsLocal)
        else {
            statistics.unmappedEvents += 1
            statistics.unmappedHandles.insert(access.handle)
            return nil
        }
        let value = UnsafeRawBufferPointer(rebasing: att[access.value])
        if access.operation == .read, facts.address == nil || links[link].peer.map({ $0 == facts.address }) ?? true {
            facts.learn(read: uuid, value)
        }
        if facts.dataType == nil { facts.dataType = MachineType(dataCharacteristic: uuid) }
        return .attribute(access.operation, uuid, AttributeValue(value), at: time)
    }

    /// The attribute of a handle its link has not mapped, from the maps the rest of the capture
    /// discovers for the link's server: the peer's, or (`serverIsLocal`, a capture on the
    /// machine's side, whose peers are gateways) those of the link's own controller, when every
    /// one that maps the handle agrees. The rest of the capture is read once, when first needed.
    private mutating func laterAttribute(_ handle: UInt16, on link: Int, serverIsLocal: Bool) -> AttributeUUID? {
        guard readsAhead else { return nil }
        if laterMaps == nil {
            var ahead = self
            ahead.readsAhead = false
            while (try? ahead.next()) != nil {}
            laterMaps = ahead.discoveredMaps
        }
        let uuid = serverIsLocal
            ? laterMaps?.attribute(handle, controller: links.id(at: link).controller)
            : links[link].peer.flatMap { laterMaps?.byPeer[$0]?[handle] }
        guard let uuid else { return nil }
        links[link].attributes[handle] = uuid
        return uuid
    }

    /// Every map this reader holds, of the links it has closed and those still open.
    private var discoveredMaps: DiscoveredMaps {
        var maps = DiscoveredMaps(byPeer: savedAttributes, byController: controllerAttributes)
        for index in links.indices {
            maps.add(links[index].attributes, peer: links[index].peer, controller: links.id(at: index).controller)
        }
        return maps
    }

    // MARK: HCI events

    private mutating func event(
        _ range: Range<Int>, _ controller: UInt16, at time: Duration, in file: UnsafeRawBufferPointer
    ) -> CaptureEvent? {
        switch HCIEvent.parse(range, in: file) {
        case .connected(let handle, let peer):
            let link = LinkID(controller: controller, handle: handle)
            reassembler.forget(link)
            links.replace(link, with: GATTLink(peer: peer, attributes: savedAttributes[peer] ?? anonymousAttributes))
            guard options.address == nil || options.address == peer else { return nil }
            if facts.address == nil { facts.address = peer }
            return CaptureEvent(time: time, kind: .connected)
        case .disconnected(let handle):
            let link = LinkID(controller: controller, handle: handle)
            reassembler.forget(link)
            statistics.droppedFragments = reassembler.dropped
            let gatt = links.remove(link)
            if let gatt {
                if let peer = gatt.peer { savedAttributes[peer] = gatt.attributes } else { anonymousAttributes = gatt.attributes }
                if !gatt.attributes.isEmpty, controllerAttributes[controller]?.contains(gatt.attributes) != true {
                    controllerAttributes[controller, default: []].append(gatt.attributes)
                }
            }
            if let wanted = options.address {
                // With a filter, only links this reader followed, to that peer or to one never named.
                guard let gatt, gatt.peer == nil || gatt.peer == wanted else { return nil }
            }
            return CaptureEvent(time: time, kind: .disconnected)
        case .advertising(let extended, let parameters):
            facts.advertisedNames.record(extended: extended, parameters, in: file)
            return nil
        case .other:
            return nil
        }
    }
}

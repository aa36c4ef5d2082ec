import Capture
import Testing

@Suite("btsnoop reader")
struct BtsnoopReaderTests {
    @Test(arguments: BtsnoopBuilder.Datalink.allCases)
    func aWholeSessionDecodesToExactlyTheseEvents(_ datalink: BtsnoopBuilder.Datalink) throws {
        var reader = try BtsnoopReader(bytes: BikeSessionFixture.build(datalink).bytes)
        let (events, error) = drain(&reader)
        #expect(error == nil)
        #expect(events == BikeSessionFixture.expectedEvents)
        #expect(reader.header == BikeSessionFixture.expectedHeader)
        #expect(reader.statistics.unmappedHandles == [0x0030])
        #expect(reader.statistics.unmappedEvents == 1)
        #expect(reader.statistics.droppedFragments == 0)
        #expect(reader.datalink.rawValue == datalink.rawValue)
    }

    @Test func linuxMonitorLinksAreKeptApartByControllerIndex() throws {
        var file = BikeSessionFixture.build(.monitor, controller: 1)
        // The same connection handle on controller 0, never discovered: its notifications
        // must not borrow controller 1's map.
        file.controller = 0
        file.att(handle: 0x0040, ATT.notification(0x0014, [0x01]), .toHost, at: 13_000_000)
        var reader = try BtsnoopReader(bytes: file.bytes)
        let (events, error) = drain(&reader)
        #expect(error == nil)
        #expect(events == BikeSessionFixture.expectedEvents)
        #expect(reader.statistics.unmappedHandles == [0x0014, 0x0030])
    }

    @Test func completeHeaderReadsAheadWithoutConsumingEvents() throws {
        let reader = try BtsnoopReader(bytes: BikeSessionFixture.build(.h4).bytes)
        #expect(reader.header == CaptureHeader())
        #expect(reader.completeHeader() == BikeSessionFixture.expectedHeader)
        var copy = reader
        #expect(drain(&copy).events == BikeSessionFixture.expectedEvents)
    }

    @Test func aHandleMapNamesHandlesWhenTheCaptureStartsAfterDiscovery() throws {
        var file = BtsnoopBuilder(.hci)
        file.att(handle: 0x0001, ATT.notification(0x0025, [0x44, 0x02]), .toHost, at: 0)
        file.att(handle: 0x0001, ATT.indication(0x0028, [0x04]), .toHost, at: 250_000)
        file.att(handle: 0x0001, ATT.notification(0x0031, [0x09]), .toHost, at: 500_000)
        file.disconnectionComplete(handle: 0x0001, at: 750_000)
        guard case .success(let map) = BtsnoopOptions.parseHandleMap("0x0025=2ad2, 40=fitness-machine-status") else {
            Issue.record("handle map did not parse")
            return
        }
        var reader = try BtsnoopReader(bytes: file.bytes, options: BtsnoopOptions(handleMap: map))
        let (events, error) = drain(&reader)
        #expect(error == nil)
        #expect(
            events == [
                .attribute(.notify, AttributeUUID(short: 0x2AD2), [0x44, 0x02], at: .zero),
                .attribute(.indicate, AttributeUUID(short: 0x2ADA), [0x04], at: .milliseconds(250)),
                CaptureEvent(time: .milliseconds(750), kind: .disconnected),
            ])
        #expect(reader.statistics.unmappedHandles == [0x0031])
        #expect(reader.header.type == .bike)
        #expect(reader.header.address == nil)
    }

    /// bluetoothd 5.66 serving a client that announced support for it (as bluetoothd does in
    /// Client Supported Features) sends notifications as ATT Handle Multiple Value
    /// Notification (0x23): seen in every VM capture (scripts/vm), so a peer on a 5.2 stack may too.
    @Test func multipleValueNotificationsAreEachAnEventInOrder() throws {
        var file = BtsnoopBuilder(.monitor)
        file.att(handle: 0x0001, ATT.multipleNotification([(0x0025, [0x44, 0x02]), (0x0028, [0x04]), (0x0031, [0x09])]), .toHost, at: 0)
        file.att(handle: 0x0001, ATT.multipleNotification([(0x0025, [0x45])]), .toHost, at: 250_000)
        // A truncated last entry is dropped, the whole ones before it kept.
        file.att(handle: 0x0001, ATT.multipleNotification([(0x0025, [0x46])]) + [0x25, 0x00, 0x05, 0x00, 0x01], .toHost, at: 500_000)
        var reader = try BtsnoopReader(
            bytes: file.bytes, options: BtsnoopOptions(handleMap: [0x0025: AttributeUUID(short: 0x2AD2), 0x0028: AttributeUUID(short: 0x2ADA)]))
        let (events, error) = drain(&reader)
        #expect(error == nil)
        #expect(
            events == [
                .attribute(.notify, AttributeUUID(short: 0x2AD2), [0x44, 0x02], at: .zero),
                .attribute(.notify, AttributeUUID(short: 0x2ADA), [0x04], at: .zero),
                .attribute(.notify, AttributeUUID(short: 0x2AD2), [0x45], at: .milliseconds(250)),
                .attribute(.notify, AttributeUUID(short: 0x2AD2), [0x46], at: .milliseconds(500)),
            ])
        #expect(reader.statistics.notificationsPerHandle == [0x0025: 3, 0x0028: 1, 0x0031: 1])
        #expect(reader.statistics.unmappedHandles == [0x0031])
    }

    /// btmon started after BlueZ first met the machine: BlueZ keeps the GATT database across
    /// reconnects, so the first link in the capture never discovers, and a later one does (seen
    /// in the VM's ride after a bluetoothd restart). The first link reads with the later map:
    /// on the gateway's side its peer's, on the machine's side (it sends the notifications, its
    /// peers are gateway adapters) the one map every discovery on its controller agrees on.
    @Test(arguments: [
        // The gateway's side: the same machine discovers later; another machine's map is not borrowed.
        (false, BikeSessionFixture.peer, [0x2AD2], true),
        (false, [0xC0, 0x11, 0x22, 0x33, 0x44, 0x09], [0x2AD2], false),
        // The machine's side: another gateway discovers later; two different maps decide nothing.
        (true, [0xC0, 0x11, 0x22, 0x33, 0x44, 0x09], [0x2AD2], true),
        (true, [0xC0, 0x11, 0x22, 0x33, 0x44, 0x09], [0x2AD2, 0x2AD1], false),
    ] as [(Bool, [UInt8], [UInt16], Bool)])
    func aLinkBeforeAnyDiscoveryReadsWithTheMapDiscoveredLater(
        _ machineSide: Bool, _ laterPeer: [UInt8], _ types: [UInt16], _ mapped: Bool
    ) throws {
        let sent: BtsnoopBuilder.Direction = machineSide ? .toController : .toHost
        let asked: BtsnoopBuilder.Direction = machineSide ? .toHost : .toController
        var file = BtsnoopBuilder(.monitor)
        file.connectionComplete(handle: 0x0040, peer: BikeSessionFixture.peer, at: 0)
        file.att(handle: 0x0040, ATT.notification(0x0014, [0x01]), sent, at: 1)
        file.disconnectionComplete(handle: 0x0040, at: 2)
        for (index, type) in types.enumerated() {
            var peer = laterPeer
            peer[0] &+= UInt8(index)
            file.connectionComplete(handle: 0x0041, peer: peer, at: 3)
            file.att(handle: 0x0041, ATT.readByTypeRequest(from: 1, to: 0xFFFF), asked, at: 4)
            file.att(handle: 0x0041, ATT.characteristics([(0x0013, 0x0014, type)]), sent, at: 4)
            file.disconnectionComplete(handle: 0x0041, at: 6)
        }
        var reader = try BtsnoopReader(bytes: file.bytes)
        let first = drain(&reader).events.filter { $0.time == .microseconds(1) }
        #expect(first == (mapped ? [.attribute(.notify, AttributeUUID(short: 0x2AD2), [0x01], at: .microseconds(1))] : []))
        #expect(reader.statistics.unmappedHandles == (mapped ? [] : [0x0014]))
    }

    /// Between two bluetoothd hosts each reads the other's GAP name, and a gateway adapter's
    /// alias can look like a machine's (the VM: a rower's capture read "SF-Bike-9999"). The
    /// data characteristic decides the type, and a read name of another kind is not taken.
    @Test func theDataDecidesTheTypeOverANameReadFromThePeer() throws {
        var file = BtsnoopBuilder(.monitor)
        file.connectionComplete(handle: 0x0040, peer: BikeSessionFixture.peer, at: 0)
        file.att(handle: 0x0040, ATT.readByTypeRequest(from: 1, to: 0xFFFF), .toController, at: 1)
        file.att(handle: 0x0040, ATT.characteristics([(0x0002, 0x0003, 0x2A00), (0x0013, 0x0014, 0x2AD1)]), .toHost, at: 2)
        file.att(handle: 0x0040, ATT.readRequest(0x0003), .toController, at: 3)
        file.att(handle: 0x0040, ATT.readResponse(Array("SF-Bike-9999".utf8)), .toHost, at: 4)
        file.att(handle: 0x0040, ATT.notification(0x0014, [0x00, 0x00]), .toHost, at: 5)
        var reader = try BtsnoopReader(bytes: file.bytes)
        _ = drain(&reader)
        #expect(reader.header.type == .rower)
        #expect(reader.header.name == nil)
    }

    @Test func theHandleMapWinsOverDiscovery() throws {
        var file = BtsnoopBuilder(.h4)
        file.att(handle: 0x0001, ATT.characteristics([(0x0013, 0x0014, 0x2AD1)]), .toHost, at: 0)
        file.att(handle: 0x0001, ATT.notification(0x0014, [0x00]), .toHost, at: 1)
        var reader = try BtsnoopReader(
            bytes: file.bytes, options: BtsnoopOptions(handleMap: [0x0014: AttributeUUID(short: 0x2AD2)]))
        #expect(drain(&reader).events == [.attribute(.notify, AttributeUUID(short: 0x2AD2), [0x00], at: .microseconds(1))])
    }

    @Test(arguments: ["0x25", "0x0025=", "0x10000=2ad2", "0x25=zz", "x=2ad2"])
    func badHandleMapsSayWhichEntry(_ text: String) {
        guard case .failure(let error) = BtsnoopOptions.parseHandleMap(text) else {
            Issue.record("'\(text)' parsed")
            return
        }
        #expect(error.description.hasPrefix("handle map entry '\(text)'"))
    }

    @Test func readByTypeForAnotherTypeIsNotTakenForDeclarations() throws {
        var file = BtsnoopBuilder(.hci)
        // Read Using Characteristic UUID 0x2A00: handle 0x0003 plus a 5-byte name, 7 bytes an
        // entry, exactly like a 16-bit declaration. The request says it is not one.
        file.att(handle: 0x0001, ATT.readByTypeRequest(from: 1, to: 0xFFFF, type: 0x2A00), .toController, at: 0)
        file.att(handle: 0x0001, [0x09, 7, 0x03, 0x00] + Array("SF-Bi".utf8), .toHost, at: 1)
        file.att(handle: 0x0001, ATT.notification(0x4953, [0x01]), .toHost, at: 2)
        // With no request in the capture, a 7-byte entry is taken for a declaration.
        file.att(handle: 0x0001, ATT.characteristics([(0x0020, 0x0021, 0x2AD1)]), .toHost, at: 3)
        file.att(handle: 0x0001, ATT.notification(0x0021, [0x02]), .toHost, at: 4)
        var reader = try BtsnoopReader(bytes: file.bytes)
        #expect(drain(&reader).events == [.attribute(.notify, AttributeUUID(short: 0x2AD1), [0x02], at: .microseconds(4))])
        #expect(reader.statistics.unmappedHandles == [0x4953])
        #expect(reader.header.type == .rower)
    }

    @Test func anAddressFilterKeepsOneMachineOfSeveral() throws {
        let other: [UInt8] = [0xC0, 0x11, 0x22, 0x33, 0x44, 0x02]
        var file = BtsnoopBuilder(.monitor)
        file.advertisingReport(peer: other, name: "SF-Rower-0002", at: 0)
        file.extendedAdvertisingReport(peer: BikeSessionFixture.peer, name: "SF-Bike-0001", at: 1)
        file.connectionComplete(handle: 0x0040, peer: other, at: 2)
        file.connectionComplete(handle: 0x0041, peer: BikeSessionFixture.peer, at: 3)
        for handle: UInt16 in [0x0040, 0x0041] {
            file.att(handle: handle, ATT.characteristics([(0x0013, 0x0014, handle == 0x0040 ? 0x2AD1 : 0x2AD2)]), .toHost, at: 4)
            file.att(handle: handle, ATT.notification(0x0014, [UInt8(handle & 0xFF)]), .toHost, at: 5)
            file.disconnectionComplete(handle: handle, at: 6)
        }
        let bike = BluetoothAddress(parsing: "c0:11:22:33:44:01")
        var reader = try BtsnoopReader(bytes: file.bytes, options: BtsnoopOptions(address: bike))
        #expect(
            drain(&reader).events == [
                CaptureEvent(time: .microseconds(3), kind: .connected),
                .attribute(.notify, AttributeUUID(short: 0x2AD2), [0x41], at: .microseconds(5)),
                CaptureEvent(time: .microseconds(6), kind: .disconnected),
            ])
        #expect(reader.header.name == "SF-Bike-0001")
        #expect(reader.header.address == "C0:11:22:33:44:01")
        #expect(reader.header.type == .bike)

        var everything = try BtsnoopReader(bytes: file.bytes)
        #expect(drain(&everything).events.count == 6)
        #expect(everything.header.name == "SF-Rower-0002")
        #expect(everything.header.type == .rower)
    }

    @Test func aShortenedNameStandsInUntilTheCompleteOneArrives() throws {
        var file = BtsnoopBuilder(.h4)
        file.advertisingReport(peer: BikeSessionFixture.peer, name: "SF-Bi", complete: false, at: 0)
        file.connectionComplete(handle: 0x0040, peer: BikeSessionFixture.peer, at: 1)
        var shortened = try BtsnoopReader(bytes: file.bytes)
        #expect(shortened.completeHeader().name == "SF-Bi")
        #expect(shortened.completeHeader().type == nil)
        file.advertisingReport(peer: BikeSessionFixture.peer, name: "SF-Bike-0009", at: 2)
        file.advertisingReport(peer: BikeSessionFixture.peer, name: "SF-Bi", complete: false, at: 3)
        shortened = try BtsnoopReader(bytes: file.bytes)
        #expect(shortened.completeHeader().name == "SF-Bike-0009")
        #expect(shortened.completeHeader().type == .bike)
    }

    @Test func aDeviceNameReadWinsOverAdvertising() throws {
        var file = BtsnoopBuilder(.hci)
        file.advertisingReport(peer: BikeSessionFixture.peer, name: "Bike", at: 0)
        file.connectionComplete(handle: 0x0040, peer: BikeSessionFixture.peer, at: 1)
        file.att(handle: 0x0040, ATT.characteristics([(0x0002, 0x0003, 0x2A00)]), .toHost, at: 2)
        file.att(handle: 0x0040, ATT.readRequest(0x0003), .toController, at: 3)
        file.att(handle: 0x0040, ATT.readResponse(Array("SF-Rower-0100".utf8)), .toHost, at: 4)
        let reader = try BtsnoopReader(bytes: file.bytes)
        #expect(reader.completeHeader().name == "SF-Rower-0100")
        #expect(reader.completeHeader().type == .rower)
    }

    @Test func fragmentsWithoutAStartAndStartsCutShortAreDropped() throws {
        var file = BtsnoopBuilder(.hci)
        file.att(handle: 0x0001, ATT.characteristics([(0x0013, 0x0014, 0x2AD2)]), .toHost, at: 0)
        // A continuation with nothing before it.
        file.aclPacket(handle: 0x0001, boundary: 0b01, [0xAA, 0xBB], .toHost, at: 1)
        // A start promising 12 bytes, then a new start before its continuation.
        file.aclPacket(handle: 0x0001, boundary: 0b10, [0x08, 0x00, 0x04, 0x00, 0x1B, 0x14], .toHost, at: 2)
        file.att(handle: 0x0001, ATT.notification(0x0014, [0x01]), .toHost, at: 3)
        // A start split inside the L2CAP header itself, then two continuations.
        file.aclPacket(handle: 0x0001, boundary: 0b10, [0x04, 0x00], .toHost, at: 4)
        file.aclPacket(handle: 0x0001, boundary: 0b01, [0x04, 0x00, 0x1B], .toHost, at: 5)
        file.aclPacket(handle: 0x0001, boundary: 0b01, [0x14, 0x00, 0x02], .toHost, at: 6)
        // Fragments in the other direction do not disturb these.
        file.aclPacket(handle: 0x0001, boundary: 0b10, [0x04, 0x00, 0x04, 0x00, 0x1B], .toHost, at: 7)
        file.aclPacket(handle: 0x0001, boundary: 0b10, [0x03, 0x00, 0x04, 0x00, 0x13, 0x00, 0x00], .toController, at: 8)
        file.aclPacket(handle: 0x0001, boundary: 0b01, [0x14, 0x00, 0x03], .toHost, at: 9)
        // A packet the snapshot length cut short.
        file.aclPacket(handle: 0x0001, boundary: 0b10, [0x05, 0x00, 0x04, 0x00, 0x1B, 0x14, 0x00, 0x04], .toHost, at: 10, snapshot: 7)
        var reader = try BtsnoopReader(bytes: file.bytes)
        #expect(
            drain(&reader).events == [
                .attribute(.notify, AttributeUUID(short: 0x2AD2), [0x01], at: .microseconds(3)),
                .attribute(.notify, AttributeUUID(short: 0x2AD2), [0x02], at: .microseconds(6)),
                .attribute(.notify, AttributeUUID(short: 0x2AD2), [0x03], at: .microseconds(9)),
            ])
        #expect(reader.statistics.droppedFragments == 2)
        #expect(reader.statistics.malformedPackets == 1)
    }

    @Test(arguments: [
        ([UInt8](), 0, "file header truncated: 0 of 16 bytes"),
        (Array("btsnoop".utf8) + [0, 0, 0, 0], 0, "file header truncated: 11 of 16 bytes"),
        (Array("btsnoob".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xE9], 0, "not a btsnoop file (no \"btsnoop\\0\" magic)"),
        (Array("btsnoop".utf8) + [0, 0, 0, 0, 2, 0, 0, 0x03, 0xE9], 8, "unsupported btsnoop version 2"),
        (Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xF3], 12, "unsupported datalink 1011 (expected 1001 HCI, 1002 H4 or 2001 Linux monitor)"),
    ] as [([UInt8], Int, String)])
    func fileHeaderDamageNamesItsOffset(_ bytes: [UInt8], _ offset: Int, _ reason: String) {
        #expect(throws: CaptureError(.byteOffset(offset), reason)) { try BtsnoopReader(bytes: bytes) }
    }
}

/// Two BlueZ hosts negotiate Enhanced ATT and send the notifications over its credit-based
/// channels, which this reader does not decode: it says so in its statistics instead of
/// silently finding nothing.
@Suite("btsnoop reader: EATT")
struct BtsnoopEATTTests {
    static func eattCapture() -> BtsnoopBuilder {
        var file = BtsnoopBuilder(.monitor)
        let link: UInt16 = 0x0040
        file.connectionComplete(handle: link, peer: BikeSessionFixture.peer, at: 0)
        // Enhanced credit-based connection request for SPSM 0x0027 (EATT), 2 channels.
        let request: [UInt8] = [0x27, 0x00, 0x00, 0x02, 0xF7, 0x00, 0x05, 0x00, 0x40, 0x00, 0x41, 0x00]
        file.l2cap(handle: link, cid: 0x0005, [0x17, 0x01] + BtsnoopBuilder.littleEndian(UInt16(request.count)) + request, .toController, at: 10_000)
        // A notification on the fixed channel, then three on EATT channel 0x0040 (2-byte SDU length first).
        file.att(handle: link, ATT.notification(0x0014, [0x01]), .toHost, at: 20_000)
        for index in 0..<3 {
            file.l2cap(handle: link, cid: 0x0040, [0x04, 0x00] + ATT.notification(0x0014, [0x02]), .toHost, at: 30_000 + Int64(index) * 250_000)
        }
        return file
    }

    @Test func eattChannelsAndNotificationsByHandleAreCounted() throws {
        var reader = try BtsnoopReader(bytes: Self.eattCapture().bytes)
        _ = drain(&reader)
        #expect(reader.statistics.eattChannelsRequested == 2)
        #expect(reader.statistics.dynamicChannelPDUs == 3)
        #expect(reader.statistics.notificationsPerHandle == [0x0014: 1])
        let summary = reader.statistics.summary
        #expect(summary.contains("notifications by handle 0x0014: 1"), "\(summary)")
        #expect(summary.contains("2 EATT channels requested and 3 PDUs on dynamic channels"), "\(summary)")
    }
}

import Capture

/// A bike session as a phone or gateway would record it: advertising, connect, full GATT
/// discovery, Device Information and Feature reads, CCCD writes, Request Control, data (one
/// notification fragmented across ACL packets), noise the reader must skip, a disconnect and
/// a reconnect that reuses the discovered handles. `expectedEvents` is worked out by hand.
enum BikeSessionFixture {
    static let peer: [UInt8] = [0xC0, 0x11, 0x22, 0x33, 0x44, 0x01]
    static let nordicTX: [UInt8] = [
        0x6E, 0x40, 0x00, 0x03, 0xB5, 0xA3, 0xF3, 0x93, 0xE0, 0xA9, 0xE5, 0x0E, 0x24, 0xDC, 0xCA, 0x9E,
    ]
    static let feature: [UInt8] = [0x83, 0x14, 0x00, 0x00, 0x0C, 0x00, 0x00, 0x00]
    static let frame: [UInt8] = [0x44, 0x02, 0xDA, 0x02, 0x02, 0x01, 0x22, 0x01, 0x00]
    /// Longer than one ACL fragment and than ``AttributeValue/inlineCapacity``.
    static let longFrame: [UInt8] = (0..<40).map { UInt8($0 * 7 & 0xFF) }
    static let restFrame: [UInt8] = [0x44, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]

    static func build(_ datalink: BtsnoopBuilder.Datalink, controller: UInt16 = 0) -> BtsnoopBuilder {
        var file = BtsnoopBuilder(datalink)
        file.controller = controller
        let link: UInt16 = 0x0040
        file.advertisingReport(peer: peer, name: "SF-Bike-0001", at: 0)
        file.command(0x200D, [UInt8](repeating: 0, count: 25), at: 100_000)
        file.connectionComplete(handle: link, peer: peer, at: 500_000)
        file.att(handle: link, [0x02, 0xF7, 0x00], .toController, at: 600_000)
        file.att(handle: link, [0x03, 0xF7, 0x00], .toHost, at: 610_000)
        file.att(handle: link, ATT.readByGroupTypeRequest(from: 0x0001, to: 0xFFFF), .toController, at: 700_000)
        file.att(
            handle: link,
            ATT.readByGroupTypeResponse([(0x0001, 0x0009, 0x1800), (0x000A, 0x000F, 0x180A), (0x0010, 0x0020, 0x1826)]),
            .toHost, at: 710_000)
        file.att(handle: link, ATT.readByTypeRequest(from: 0x0001, to: 0xFFFF), .toController, at: 800_000)
        file.att(
            handle: link, ATT.characteristics([(0x0002, 0x0003, 0x2A00), (0x000B, 0x000C, 0x2A29), (0x000D, 0x000E, 0x2A24)]),
            .toHost, at: 810_000)
        file.att(handle: link, ATT.readByTypeRequest(from: 0x000E, to: 0xFFFF), .toController, at: 820_000)
        file.att(
            handle: link, ATT.characteristics([(0x0011, 0x0012, 0x2ACC), (0x0013, 0x0014, 0x2AD2), (0x0016, 0x0017, 0x2AD9)]),
            .toHost, at: 830_000)
        file.att(handle: link, ATT.readByTypeRequest(from: 0x0017, to: 0xFFFF), .toController, at: 840_000)
        file.att(handle: link, ATT.characteristic128(declaration: 0x0019, value: 0x001A, uuid: nordicTX), .toHost, at: 850_000)
        file.att(handle: link, ATT.readByTypeRequest(from: 0x001A, to: 0xFFFF), .toController, at: 860_000)
        file.att(handle: link, ATT.errorResponse(request: 0x08, handle: 0x001A), .toHost, at: 870_000)
        file.att(handle: link, ATT.descriptors([(0x0015, 0x2902), (0x0018, 0x2902), (0x001B, 0x2902)]), .toHost, at: 880_000)
        file.att(handle: link, ATT.readRequest(0x000C), .toController, at: 900_000)
        file.att(handle: link, ATT.readResponse(Array("SolidFocus".utf8)), .toHost, at: 910_000)
        file.att(handle: link, ATT.readRequest(0x000E), .toController, at: 920_000)
        file.att(handle: link, ATT.readResponse(Array("SF-Bike-M1".utf8) + [0]), .toHost, at: 930_000)
        file.att(handle: link, ATT.readRequest(0x0012), .toController, at: 940_000)
        file.att(handle: link, ATT.readResponse(feature), .toHost, at: 950_000)
        file.att(handle: link, ATT.writeRequest(0x0015, [0x01, 0x00]), .toController, at: 960_000)
        file.att(handle: link, ATT.writeResponse(), .toHost, at: 965_000)
        file.att(handle: link, ATT.writeRequest(0x0018, [0x02, 0x00]), .toController, at: 970_000)
        file.att(handle: link, ATT.writeRequest(0x0017, [0x00]), .toController, at: 1_000_000)
        file.att(handle: link, ATT.indication(0x0017, [0x80, 0x00, 0x01]), .toHost, at: 1_050_000)
        file.att(handle: link, ATT.confirmation(), .toController, at: 1_060_000)
        file.att(handle: link, ATT.notification(0x0014, frame), .toHost, at: 1_250_000)
        file.att(handle: link, ATT.notification(0x0014, longFrame), .toHost, at: 1_500_000, fragment: 10)
        file.l2cap(handle: link, cid: 0x0005, [0x12, 0x01, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00], .toHost, at: 1_600_000)
        file.att(handle: link, ATT.notification(0x001A, [0x01, 0x02]), .toHost, at: 1_700_000)
        file.att(handle: link, ATT.notification(0x0030, [0xFF]), .toHost, at: 1_800_000)
        file.att(handle: link, ATT.writeCommand(0x0017, [0x04, 0x32]), .toController, at: 1_900_000)
        file.att(handle: link, ATT.readRequest(0x0003), .toController, at: 2_000_000)
        file.att(handle: link, ATT.errorResponse(request: 0x0A, handle: 0x0003), .toHost, at: 2_010_000)
        file.att(handle: link, ATT.readResponse([0x55]), .toHost, at: 2_020_000)
        file.disconnectionComplete(handle: link, at: 10_000_000)
        file.connectionComplete(handle: 0x0041, peer: peer, enhanced: true, at: 12_000_000)
        file.att(handle: 0x0041, ATT.notification(0x0014, restFrame), .toHost, at: 12_500_000)
        return file
    }

    static func uuid(_ short: UInt16) -> AttributeUUID { AttributeUUID(short: short) }

    static var expectedEvents: [CaptureEvent] {
        [
            CaptureEvent(time: .milliseconds(500), kind: .connected),
            .attribute(.read, uuid(0x2A29), AttributeValue(Array("SolidFocus".utf8)), at: .milliseconds(910)),
            .attribute(.read, uuid(0x2A24), AttributeValue(Array("SF-Bike-M1".utf8) + [0]), at: .milliseconds(930)),
            .attribute(.read, uuid(0x2ACC), AttributeValue(feature), at: .milliseconds(950)),
            .attribute(.write, uuid(0x2902), [0x01, 0x00], at: .milliseconds(960)),
            .attribute(.write, uuid(0x2902), [0x02, 0x00], at: .milliseconds(970)),
            .attribute(.write, uuid(0x2AD9), [0x00], at: .milliseconds(1000)),
            .attribute(.indicate, uuid(0x2AD9), [0x80, 0x00, 0x01], at: .milliseconds(1050)),
            .attribute(.notify, uuid(0x2AD2), AttributeValue(frame), at: .milliseconds(1250)),
            .attribute(.notify, uuid(0x2AD2), AttributeValue(longFrame), at: .milliseconds(1500)),
            .attribute(
                .notify, AttributeUUID(high: 0x6E40_0003_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E), [0x01, 0x02],
                at: .milliseconds(1700)),
            .attribute(.write, uuid(0x2AD9), [0x04, 0x32], at: .milliseconds(1900)),
            CaptureEvent(time: .seconds(10), kind: .disconnected),
            CaptureEvent(time: .seconds(12), kind: .connected),
            .attribute(.notify, uuid(0x2AD2), AttributeValue(restFrame), at: .milliseconds(12_500)),
        ]
    }

    static let expectedHeader = CaptureHeader(
        name: "SF-Bike-0001", address: "C0:11:22:33:44:01", manufacturer: "SolidFocus", model: "SF-Bike-M1",
        type: .bike, feature: feature, start: .seconds(1_795_248_000))
}

/// Everything a source yields, and the error that stopped it, if any.
func drain(_ source: inout some CaptureEventSource) -> (events: [CaptureEvent], error: CaptureError?) {
    var events: [CaptureEvent] = []
    do {
        while let event = try source.next() { events.append(event) }
    } catch {
        return (events, error)
    }
    return (events, nil)
}

import Capture
import FTMS
import Testing

@Suite("capture model")
struct ModelTests {
    @Test(arguments: [
        "", "2ad", "2ad2x", "0x", "0x2ad", "2a-d2", "00002ad2-0000-1000-8000-00805f9b34f", "00002ad-20000-1000-8000-00805f9b34fb",
        "00002ad2-0000-1000-8000-00805f9b34fbb", "g0002ad2", "0000 2ad2",
    ])
    func malformedUUIDsAreRejected(_ text: String) {
        #expect(AttributeUUID(parsing: text) == nil)
    }

    @Test func uuidsPrintShortOnlyWhenTheyAreSIGSixteenBit() throws {
        #expect(AttributeUUID(short: 0x2AD2).description == "2ad2")
        #expect(AttributeUUID(uuid32: 0x2AD2) == AttributeUUID(short: 0x2AD2))
        #expect(AttributeUUID(uuid32: 0x1234_5678).description == "12345678-0000-1000-8000-00805f9b34fb")
        #expect(AttributeUUID(uuid32: 0x1234_5678).short == nil)
        let vendor = try #require(AttributeUUID(parsing: "6E400001-B5A3-F393-E0A9-E50E24DCCA9E"))
        #expect(vendor.description == "6e400001-b5a3-f393-e0a9-e50e24dcca9e")
        #expect(vendor == AttributeUUID(parsing: "6e400001b5a3f393e0a9e50e24dcca9e"))
        #expect(AttributeUUID(.rowerData).description == "2ad1")
    }

    @Test func addressesReadAndPrintAsBlueZDoes() {
        #expect(BluetoothAddress(parsing: "c0:11:22:33:44:0a")?.description == "C0:11:22:33:44:0A")
        #expect(BluetoothAddress(parsing: "C0-11-22-33-44-0A") == BluetoothAddress(value: 0xC011_2233_440A))
        for bad in ["C0:11:22:33:44", "C0:11:22:33:44:0A:00", "C0:11:22:33:44:0G", "C011:22:33:44:0A:"] {
            #expect(BluetoothAddress(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func valuesCompareByContentWhereverTheyAreStored() {
        let long = (0..<40).map { UInt8($0) }
        let inline = AttributeValue(long.prefix(32))
        let spilled = AttributeValue(long)
        #expect(inline.count == 32 && spilled.count == 40)
        #expect(Array(spilled) == long)
        #expect(spilled == AttributeValue(long) && spilled != inline)
        #expect(Set([spilled, AttributeValue(long), inline]).count == 2)
        #expect(AttributeValue([]) == [] && AttributeValue([1, 2]).description == "0102")
        #expect(spilled.withUnsafeBytes { Array($0) } == long)
    }

    @Test func eventsDescribeThemselvesOnOneLine() {
        #expect(
            CaptureEvent.attribute(.indicate, AttributeUUID(short: 0x2AD9), [0x80, 0x00, 0x01], at: .milliseconds(1050))
                .description == "1.05 s indicate 2ad9 800001")
        #expect(CaptureEvent(time: .seconds(10), kind: .disconnected).description == "10 s disconnected")
        #expect(CaptureEvent(time: .zero, kind: .connected).characteristic == nil)
        #expect(CaptureEvent.attribute(.notify, AttributeUUID(short: 0x2AD2), [], at: .zero).characteristic == .indoorBikeData)
    }

    @Test func machineTypesFromNamesAndOtherToolsSpellings() {
        #expect(MachineType(machineName: "SF-Rower-0001") == .rower)
        #expect(MachineType(machineName: "SF-Treadmill-1") == nil)
        #expect(MachineType(lenient: "Indoor Bike") == .bike)
        #expect(MachineType(lenient: "rowing_machine") == .rower)
        #expect(MachineType(lenient: "treadmill") == nil)
        #expect(MachineType.rower.dataKind == .rowerData)
    }
}

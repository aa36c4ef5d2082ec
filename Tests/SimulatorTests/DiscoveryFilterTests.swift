import DBus
import Testing

@testable import Simulator

@Suite("Discovery filter")
struct DiscoveryFilterTests {
    static let fe01 = "0000fe01-0000-1000-8000-00805f9b34fb"

    @Test func validFiltersParse() throws {
        let filter = try DiscoveryFilter.parse(.properties([
            "UUIDs": .array(element: "s", [.string("FE01"), .string("00001826-0000-1000-8000-00805F9B34FB")]),
            "Transport": .string("le"), "RSSI": .int16(-80), "DuplicateData": .bool(false), "Pattern": .string("SF-"),
        ]))
        #expect(filter?.uuids == [Self.fe01, "00001826-0000-1000-8000-00805f9b34fb"])
        #expect(filter?.transport == "le" && filter?.rssi == -80 && filter?.pattern == "SF-")
        #expect(try DiscoveryFilter.parse(.properties([:])) == nil)
    }

    @Test func badFiltersAreInvalidArguments() {
        let bad: [DBusValue] = [
            .properties(["RSSI": .int16(-128)]), .properties(["RSSI": .int32(-60)]), .properties(["Transport": .string("usb")]),
            .properties(["UUIDs": .array(element: "s", [.string("not-a-uuid")])]), .properties(["Colour": .string("red")]),
            .properties(["RSSI": .int16(-60), "Pathloss": .uint16(10)]), .properties(["UUIDs": .string(Self.fe01)]), .int32(1),
        ]
        for value in bad {
            #expect(throws: BusFailure.invalidArguments, "\(value)") { try DiscoveryFilter.parse(value) }
        }
    }

    @Test func matchingFollowsIsFilterMatch() {
        let filter = DiscoveryFilter(uuids: [Self.fe01], rssi: -70, transport: "le", pattern: "SF-")
        #expect(filter.matches(address: "C0:00", name: "SF-Bike-1", uuids: [Self.fe01], rssi: -60))
        #expect(!filter.matches(address: "C0:00", name: "SF-Bike-1", uuids: [], rssi: -60))
        #expect(!filter.matches(address: "C0:00", name: "SF-Bike-1", uuids: [Self.fe01], rssi: -80))
        #expect(!filter.matches(address: "C0:00", name: "Other", uuids: [Self.fe01], rssi: -60))
        #expect(DiscoveryFilter(pattern: "C0:").matches(address: "C0:00", name: nil, uuids: [], rssi: -90))
        #expect(!DiscoveryFilter(transport: "bredr").matches(address: "C0", name: nil, uuids: [], rssi: 0))
    }
}

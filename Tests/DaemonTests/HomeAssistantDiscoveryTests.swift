import Daemon
import JSON
import Testing
import Workout

/// Home Assistant's discovery configs as bytes: the wire shape Home Assistant reads, and
/// names that would break JSON built by hand written as JSON strings.
@Suite("Home Assistant discovery")
struct HomeAssistantDiscoveryTests {
    static let discovery = HomeAssistantDiscovery(prefix: "homeassistant", topics: MQTTTopics(prefix: "ftms-bridge", gateway: "gw-1"))

    @Test func aSensorConfigIsWrittenAsHomeAssistantReadsIt() throws {
        let bike = MachineIdentity(name: "SF-Bike-0001", address: "c0:11:22:33:44:01", model: "SF-Bike-M1", type: .bike)
        let configs = Self.discovery.announce(bike, manufacturer: "SolidFocus")
        #expect(configs.count == 8)
        let power = try #require(configs.first { $0.topic == "homeassistant/sensor/ftms-bridge_gw-1/SF-Bike-0001_power/config" })
        #expect(String(decoding: power.payload, as: UTF8.self) == #"{"name":"Power","unique_id":"ftms-bridge_gw-1_SF-Bike-0001_power","state_topic":"ftms-bridge/gw-1/machines/SF-Bike-0001/sample","value_template":"{{ value_json.payload.instantaneous_power_w if value_json.payload.instantaneous_power_w is defined else none }}","unit_of_measurement":"W","device_class":"power","state_class":"measurement","availability":[{"topic":"ftms-bridge/gw-1/status"}],"device":{"identifiers":["ftms-bridge_gw-1_SF-Bike-0001"],"name":"SF-Bike-0001","manufacturer":"SolidFocus","model":"SF-Bike-M1","connections":[["bluetooth","C0:11:22:33:44:01"]],"via_device":"ftms-bridge_gw-1"}}"#)
        let connected = try #require(configs.last)
        #expect(connected.topic == "homeassistant/binary_sensor/ftms-bridge_gw-1/SF-Bike-0001_connectivity/config")
        #expect(String(decoding: connected.payload, as: UTF8.self) == #"{"name":"Connected","unique_id":"ftms-bridge_gw-1_SF-Bike-0001_connectivity","state_topic":"ftms-bridge/gw-1/machines/SF-Bike-0001/state","value_template":"{{ 'ON' if value_json.payload.state == 'ready' else 'OFF' }}","device_class":"connectivity","availability":[{"topic":"ftms-bridge/gw-1/status"}],"device":{"identifiers":["ftms-bridge_gw-1_SF-Bike-0001"],"name":"SF-Bike-0001","manufacturer":"SolidFocus","model":"SF-Bike-M1","connections":[["bluetooth","C0:11:22:33:44:01"]],"via_device":"ftms-bridge_gw-1"}}"#)
        #expect(HomeAssistantDiscovery.bluetoothAddress(ofConfig: power.payload) == "C0:11:22:33:44:01")
    }

    /// A name, model or manufacturer a peer made up (quotes, a backslash, a newline, a control
    /// character) stays one JSON string in every config, on one line.
    @Test func namesFromThePeerStayStrings() throws {
        let odd = MachineIdentity(name: "Bike \"7\" \\ A\nB\u{1}", address: "c0:11:22:33:44:07", model: "M\"1\"", type: .bike)
        for config in Self.discovery.announce(odd, manufacturer: "Solid\"Focus\\") {
            #expect(!config.payload.contains(UInt8(ascii: "\n")))
            let value = try JSONReader.read(config.payload)
            #expect(value["device"]?["name"]?.string == odd.name)
            #expect(value["device"]?["model"]?.string == "M\"1\"")
            #expect(value["device"]?["manufacturer"]?.string == "Solid\"Focus\\")
        }
    }
}

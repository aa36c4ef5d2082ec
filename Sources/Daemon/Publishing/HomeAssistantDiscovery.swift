import JSON
import FTMS
import FoundationEssentials
package import Workout

/// Home Assistant's MQTT discovery (retained `DISCOVERY/COMPONENT/NODE/OBJECT/config`): each
/// machine becomes a device with one sensor per live value of its `sample` topic and a
/// connectivity sensor on its `state` topic, all unavailable while the gateway's `status` is
/// `offline`. The node id is the gateway, so one gateway's entities can be listed (and the
/// ones of machines no longer allowed removed) with one subscription.
package struct HomeAssistantDiscovery: Sendable {
    struct Sensor: Sendable {
        let key: String
        let name: String
        /// The sample payload's field (FTMS's JSON names, contract §3.1).
        let field: String
        let unit: String
        let deviceClass: String?
        let stateClass: String
    }

    static let sensors: [Sensor] = [
        Sensor(key: "power", name: "Power", field: "instantaneous_power_w", unit: "W", deviceClass: "power", stateClass: "measurement"),
        Sensor(key: "cadence", name: "Cadence", field: "instantaneous_cadence_rpm", unit: "rpm", deviceClass: nil, stateClass: "measurement"),
        Sensor(key: "speed", name: "Speed", field: "instantaneous_speed_kmh", unit: "km/h", deviceClass: "speed", stateClass: "measurement"),
        Sensor(key: "heart_rate", name: "Heart rate", field: "heart_rate_bpm", unit: "bpm", deviceClass: nil, stateClass: "measurement"),
        Sensor(key: "distance", name: "Distance", field: "total_distance_m", unit: "m", deviceClass: "distance", stateClass: "total_increasing"),
        Sensor(key: "energy", name: "Energy", field: "total_energy_kcal", unit: "kcal", deviceClass: nil, stateClass: "total_increasing"),
        Sensor(key: "stroke_rate", name: "Stroke rate", field: "stroke_rate_spm", unit: "spm", deviceClass: nil, stateClass: "measurement"),
    ]
    static let connectivity = "connectivity"

    package let prefix: String
    package let topics: MQTTTopics

    package init(prefix: String, topics: MQTTTopics) {
        self.prefix = prefix
        self.topics = topics
    }

    /// Home Assistant allows only `[a-zA-Z0-9_-]` in node and object ids.
    static func identifier(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_") ? scalar : "_"
        }))
    }

    var node: String { "ftms-bridge_" + Self.identifier(topics.gateway) }

    /// Matches every config topic of this gateway, for the removal pass.
    package var subscription: String { "\(prefix)/+/\(node)/+/config" }

    func configTopic(component: String, machine: String, key: String) -> String {
        "\(prefix)/\(component)/\(node)/\(Self.identifier(machine))_\(key)/config"
    }

    /// Every config message for `machine`: (topic, JSON payload).
    package func announce(_ machine: MachineIdentity, manufacturer: String?) -> [(topic: String, payload: [UInt8])] {
        let device = deviceJSON(machine, manufacturer: manufacturer)
        let availability = "[{\"topic\":\"" + escaped(topics.status) + "\"}]"
        var messages: [(String, [UInt8])] = []
        for sensor in Self.sensors {
            var json = "{"
            json += #""name":"\#(sensor.name)","#
            json += #""unique_id":"\#(node)_\#(Self.identifier(machine.name))_\#(sensor.key)","#
            json += #""state_topic":"\#(escaped(topics.sample(machine.name)))","#
            json += #""value_template":"{{ value_json.payload.\#(sensor.field) if value_json.payload.\#(sensor.field) is defined else none }}","#
            json += #""unit_of_measurement":"\#(sensor.unit)","#
            if let deviceClass = sensor.deviceClass { json += #""device_class":"\#(deviceClass)","# }
            json += #""state_class":"\#(sensor.stateClass)","#
            json += #""availability":\#(availability),"#
            json += #""device":\#(device)}"#
            messages.append((configTopic(component: "sensor", machine: machine.name, key: sensor.key), Array(json.utf8)))
        }
        var json = "{"
        json += #""name":"Connected","#
        json += #""unique_id":"\#(node)_\#(Self.identifier(machine.name))_\#(Self.connectivity)","#
        json += #""state_topic":"\#(escaped(topics.state(machine.name)))","#
        json += #""value_template":"{{ 'ON' if value_json.payload.state == 'ready' else 'OFF' }}","#
        json += #""device_class":"connectivity","#
        json += #""availability":\#(availability),"#
        json += #""device":\#(device)}"#
        messages.append((configTopic(component: "binary_sensor", machine: machine.name, key: Self.connectivity), Array(json.utf8)))
        return messages
    }

    /// The machine a config topic of this gateway belongs to (its object id without the
    /// sensor's key), or `nil` for a topic that is not one of ours.
    package func machineIdentifier(ofConfigTopic topic: String) -> String? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count >= 4, levels[levels.count - 3] == Substring(node), levels.last == "config" else { return nil }
        let object = levels[levels.count - 2]
        for key in Self.sensors.map(\.key) + [Self.connectivity] where object.hasSuffix("_" + key) {
            return String(object.dropLast(key.count + 1))
        }
        return nil
    }

    /// The Bluetooth address in a config payload's device `connections`, uppercased; `nil` for
    /// a payload that has none (announced before the address was added) or is not ours.
    package static func bluetoothAddress(ofConfig payload: [UInt8]) -> String? {
        struct Config: Decodable {
            struct Device: Decodable { var connections: [[String]]? }
            var device: Device?
        }
        guard let config = try? JSONDecoder().decode(Config.self, from: Data(payload)) else { return nil }
        return config.device?.connections?.first { $0.count == 2 && $0[0] == "bluetooth" }?[1].uppercased()
    }

    private func deviceJSON(_ machine: MachineIdentity, manufacturer: String?) -> String {
        var json = "{"
        json += #""identifiers":["\#(node)_\#(Self.identifier(machine.name))"],"#
        json += #""name":"\#(escaped(machine.name))","#
        json += #""manufacturer":"\#(escaped(manufacturer ?? "SolidFocus"))","#
        if let model = machine.model { json += #""model":"\#(escaped(model))","# }
        // Home Assistant's device registry links by connection; it is also how a later start
        // whose allow-list names machines by address tells which entities are still allowed.
        json += #""connections":[["bluetooth","\#(escaped(machine.address.uppercased()))"]],"#
        json += #""via_device":"\#(node)"}"#
        return json
    }

    /// A JSON string's contents, escaped with FTMS's JSON writer (no second escaper).
    private func escaped(_ text: String) -> String {
        var buffer = JSONBuffer(capacity: text.utf8.count + 8)
        buffer.appendString(text)
        let bytes = buffer.bytes
        return String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self)
    }
}

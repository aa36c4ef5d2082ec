import JSON
import FTMS
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

    /// Every config message for `machine`: (topic, JSON payload), written by the one JSON
    /// writer, so a name or model holding quotes, backslashes or newlines is escaped as any
    /// other string is.
    package func announce(_ machine: MachineIdentity, manufacturer: String?) -> [(topic: String, payload: [UInt8])] {
        let device = deviceJSON(machine, manufacturer: manufacturer)
        let availability: JSONValue = [["topic": .string(topics.status)]]
        let object = "\(node)_\(Self.identifier(machine.name))"
        var messages: [(String, [UInt8])] = Self.sensors.map { sensor in
            var config = JSONObject([
                ("name", .string(sensor.name)),
                ("unique_id", .string("\(object)_\(sensor.key)")),
                ("state_topic", .string(topics.sample(machine.name))),
                ("value_template", .string("{{ value_json.payload.\(sensor.field) if value_json.payload.\(sensor.field) is defined else none }}")),
                ("unit_of_measurement", .string(sensor.unit)),
            ])
            if let deviceClass = sensor.deviceClass { config["device_class"] = .string(deviceClass) }
            config["state_class"] = .string(sensor.stateClass)
            config["availability"] = availability
            config["device"] = device
            return (configTopic(component: "sensor", machine: machine.name, key: sensor.key), JSONWriter.bytes(.object(config)))
        }
        let connected = JSONObject([
            ("name", "Connected"),
            ("unique_id", .string("\(object)_\(Self.connectivity)")),
            ("state_topic", .string(topics.state(machine.name))),
            ("value_template", "{{ 'ON' if value_json.payload.state == 'ready' else 'OFF' }}"),
            ("device_class", "connectivity"),
            ("availability", availability),
            ("device", device),
        ])
        messages.append((configTopic(component: "binary_sensor", machine: machine.name, key: Self.connectivity), JSONWriter.bytes(.object(connected))))
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
        let connections = (try? JSONReader.read(payload))?["device"]?["connections"]?.array ?? []
        let bluetooth = connections.lazy.compactMap { $0.array?.compactMap(\.string) }.first { $0.count == 2 && $0[0] == "bluetooth" }
        return bluetooth?[1].uppercased()
    }

    private func deviceJSON(_ machine: MachineIdentity, manufacturer: String?) -> JSONValue {
        var device = JSONObject([
            ("identifiers", [.string("\(node)_\(Self.identifier(machine.name))")]),
            ("name", .string(machine.name)),
            ("manufacturer", .string(manufacturer ?? "SolidFocus")),
        ])
        if let model = machine.model { device["model"] = .string(model) }
        // Home Assistant's device registry links by connection; it is also how a later start
        // whose allow-list names machines by address tells which entities are still allowed.
        device["connections"] = [["bluetooth", .string(machine.address.uppercased())]]
        device["via_device"] = .string(node)
        return .object(device)
    }
}

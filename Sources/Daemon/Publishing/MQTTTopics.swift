/// The topic tree of docs/mqtt.md: `PREFIX/GATEWAY/status`, `PREFIX/GATEWAY/upload`, `PREFIX/GATEWAY/store` and
/// `PREFIX/GATEWAY/machines/MACHINE/{state,sample,session,open_session}`.
package struct MQTTTopics: Sendable, Equatable {
    package let prefix: String
    package let gateway: String

    package init(prefix: String, gateway: String) {
        self.prefix = prefix
        self.gateway = Self.level(gateway)
    }

    package var base: String { "\(prefix)/\(gateway)" }
    package var status: String { "\(base)/status" }
    package var upload: String { "\(base)/upload" }
    package var store: String { "\(base)/store" }

    package func state(_ machine: String) -> String { "\(base)/machines/\(Self.level(machine))/state" }
    package func sample(_ machine: String) -> String { "\(base)/machines/\(Self.level(machine))/sample" }
    package func session(_ machine: String) -> String { "\(base)/machines/\(Self.level(machine))/session" }
    package func openSession(_ machine: String) -> String { "\(base)/machines/\(Self.level(machine))/open_session" }

    /// A name as one topic level: MQTT's separators and wildcards (`/`, `+`, `#`), NUL and
    /// spaces become `_`, so no machine name can reach into another's topics.
    package static func level(_ name: String) -> String {
        let cleaned = String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
            scalar == "/" || scalar == "+" || scalar == "#" || scalar == " " || scalar.properties.generalCategory == .control ? "_" : scalar
        }))
        return cleaned.isEmpty ? "_" : cleaned
    }
}

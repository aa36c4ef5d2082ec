/// The topic tree of docs/mqtt.md: `PREFIX/GATEWAY/status`, `PREFIX/GATEWAY/upload` and
/// `PREFIX/GATEWAY/machines/MACHINE/{state,sample,session,open_session}`.
public struct MQTTTopics: Sendable, Equatable {
    public let prefix: String
    public let gateway: String

    public init(prefix: String, gateway: String) {
        self.prefix = prefix
        self.gateway = Self.level(gateway)
    }

    public var base: String { "\(prefix)/\(gateway)" }
    public var status: String { "\(base)/status" }
    public var upload: String { "\(base)/upload" }

    public func state(_ machine: String) -> String { "\(base)/machines/\(Self.level(machine))/state" }
    public func sample(_ machine: String) -> String { "\(base)/machines/\(Self.level(machine))/sample" }
    public func session(_ machine: String) -> String { "\(base)/machines/\(Self.level(machine))/session" }
    public func openSession(_ machine: String) -> String { "\(base)/machines/\(Self.level(machine))/open_session" }

    /// A name as one topic level: MQTT's separators and wildcards (`/`, `+`, `#`), NUL and
    /// spaces become `_`, so no machine name can reach into another's topics.
    public static func level(_ name: String) -> String {
        let cleaned = String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
            scalar == "/" || scalar == "+" || scalar == "#" || scalar == " " || scalar.properties.generalCategory == .control ? "_" : scalar
        }))
        return cleaned.isEmpty ? "_" : cleaned
    }
}

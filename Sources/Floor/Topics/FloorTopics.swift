/// The floor's topics, the one place they are built and read back:
/// `PREFIX/floor/gateways/GATEWAY` (``GatewayPresence``),
/// `PREFIX/floor/machines/ADDRESS/claim` (``MachineClaim``) and
/// `PREFIX/floor/machines/ADDRESS/checkpoint` (``MirroredCheckpoint``), all retained, QoS 1.
///
/// ADDRESS is the machine's address upper-cased, its `:` kept (a topic level may hold one), so
/// every gateway names a machine's topics alike whatever case its adapter reports.
public struct FloorTopics: Sendable, Hashable {
    /// What a received topic is about.
    public enum Received: Sendable, Hashable {
        case presence(gateway: String)
        case claim(machine: String)
        case checkpoint(machine: String)
    }

    public let prefix: String

    public init(prefix: String) {
        self.prefix = prefix
    }

    private var base: String { "\(prefix)/floor" }

    public func presence(gateway: String) -> String { "\(base)/gateways/\(Self.level(gateway))" }
    public func claim(machine: String) -> String { "\(base)/machines/\(Self.machineLevel(machine))/claim" }
    public func checkpoint(machine: String) -> String { "\(base)/machines/\(Self.machineLevel(machine))/checkpoint" }

    /// Everything under the floor, for a reader that wants it all (doctor, the dashboard).
    public var everything: String { "\(base)/#" }

    /// A topic of the floor that no gateway reads: doctor's retained probe for `client`.
    public func probe(client: String) -> String { "\(base)/doctor/\(Self.level(client))" }

    /// Whether `topic` lies under the floor (parsed by ``parse(_:)`` or not).
    public func contains(_ topic: String) -> Bool { topic.hasPrefix(base + "/") }

    /// The subscriptions that receive the whole floor.
    public var filters: [String] {
        ["\(base)/gateways/+", "\(base)/machines/+/claim", "\(base)/machines/+/checkpoint"]
    }

    /// The gateway or machine a received topic names; nil for a topic outside the floor.
    public func parse(_ topic: String) -> Received? {
        guard topic.hasPrefix(base + "/") else { return nil }
        let levels = topic.dropFirst(base.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        switch (levels.count, levels.first) {
        case (2, "gateways"): return levels[1].isEmpty ? nil : .presence(gateway: String(levels[1]))
        case (3, "machines") where !levels[1].isEmpty:
            switch levels[2] {
            case "claim": return .claim(machine: String(levels[1]))
            case "checkpoint": return .checkpoint(machine: String(levels[1]))
            default: return nil
            }
        default: return nil
        }
    }

    /// A machine's address as the floor keys it everywhere: upper-cased.
    public static func machineKey(_ address: String) -> String { address.uppercased() }

    static func machineLevel(_ address: String) -> String { level(machineKey(address)) }

    /// A name as one topic level: MQTT's separators and wildcards (`/`, `+`, `#`), NUL, controls
    /// and spaces become `_`, so no name can reach into another's topics (the daemon's own
    /// topics make their levels the same way).
    public static func level(_ name: String) -> String {
        let cleaned = String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
            scalar == "/" || scalar == "+" || scalar == "#" || scalar == " " || scalar.properties.generalCategory == .control ? "_" : scalar
        }))
        return cleaned.isEmpty ? "_" : cleaned
    }
}

/// Where session ids come from. Injected so the engine draws no randomness of its own:
/// the daemon gives it system randomness, replay and tests a seeded generator, and then the
/// same capture always yields the same `session_id`s.
public protocol SessionIDSource: Sendable {
    /// A new UUID in canonical lowercase form (`8-4-4-4-12` hex digits).
    mutating func nextSessionID() -> String
}

/// Version 4 (random) UUIDs from any random number generator.
public struct RandomSessionIDs<Generator: RandomNumberGenerator & Sendable>: SessionIDSource {
    private var generator: Generator

    public init(using generator: Generator) {
        self.generator = generator
    }

    public mutating func nextSessionID() -> String {
        UUIDText.version4(high: generator.next(), low: generator.next())
    }
}

extension RandomSessionIDs where Generator == SystemRandomNumberGenerator {
    /// Ids from the system's cryptographic randomness: the daemon's choice.
    public init() {
        self.init(using: SystemRandomNumberGenerator())
    }
}

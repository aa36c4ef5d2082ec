import DeterministicRandom
import DaemonConfig
import Foundation
import Testing
import Workout

/// `run --print-config` prints `rendered()`; reading it back must give the same gateway.
@Suite("Config rendering")
struct RenderTests {
    @Test func theDefaultsRenderAndReadBack() throws {
        let text = DaemonConfig().rendered()
        let config = try DaemonConfig.parse(text)
        #expect(config == DaemonConfig())
        #expect(config.explicitKeys == Set(DaemonConfig.documentedKeys.map(\.key)), "rendered() sets every key")
    }

    /// Property: for random valid configs, parse(rendered()) == the config. Seeded: a failure
    /// names its seed and reruns exactly.
    @Test(arguments: [UInt64(1), 2, 3, 0xF7A5])
    func randomConfigsRoundTrip(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for index in 0..<150 {
            let config = RandomConfig.make(using: &random)
            let text = config.rendered()
            let parsed: DaemonConfig
            do {
                parsed = try DaemonConfig.parse(text, source: "seed \(seed) #\(index)")
            } catch {
                Issue.record("seed \(seed) #\(index): \(error)\n\(text)")
                continue
            }
            #expect(parsed == config, "seed \(seed) #\(index)\n\(text)")
            #expect(parsed.rendered() == text)
        }
    }

    /// The config holds no secret, so printing it is safe: no key can take a credential. A
    /// `*_file` key names a file that holds one (mode 0600, checked when it is read).
    @Test func nothingSecretCanBeConfigured() {
        let keys = DaemonConfig.documentedKeys.map(\.key).filter { !$0.hasSuffix("_file") }
        for word in ["token", "secret", "password", "credential", "key"] {
            #expect(!keys.contains { $0.contains(word) }, "\(word)")
        }
        #expect(throws: ConfigError.self) { try DaemonConfig.parse("[backend]\nurl = \"https://a:b@host\"") }
    }
}

/// Random configs that are valid by construction, with awkward strings (quotes, backslashes,
/// non-ASCII) where strings are free.
enum RandomConfig {
    static let zones = ["", "UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Adelaide"]
    static let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
    static let nameCharacters = Array("abcXYZ019-_:. \"\\'#[]=éß日本🚲")

    static func make(using random: inout SplitMix64) -> DaemonConfig {
        var config = DaemonConfig()
        config.machines.allow = unique((0..<Int.random(in: 0...4, using: &random)).map { _ in name(using: &random) })
        config.machines.adapters = unique((0..<Int.random(in: 0...3, using: &random)).map { _ in "hci\(Int.random(in: 0...99, using: &random))" })
        config.machines.acceptGenericFTMS = Bool.random(using: &random)
        config.machines.maxConnected = Int.random(in: 1...64, using: &random)
        config.machines.maxPerAdapter = Int.random(in: 1...64, using: &random)
        var rules = SessionRules()
        rules.pauseAfterIdle = duration(using: &random)
        rules.endAfterIdle = duration(using: &random)
        rules.disconnectGrace = duration(using: &random)
        rules.minimumMovement = duration(using: &random)
        rules.sampleHoldCap = duration(using: &random)
        rules.checkpointInterval = duration(using: &random)
        rules.efficiency = Double.random(in: 0.01...1, using: &random)
        config.sessions.rules = rules
        config.sessions.timeZone = zones.randomElement(using: &random) ?? ""
        config.backend.url = Bool.random(using: &random) ? "" : "https://host\(Int.random(in: 1...9, using: &random)).example:8443/api"
        config.backend.provider = ["google", "apple", "test", "x-1_y"].randomElement(using: &random) ?? "google"
        config.backend.timeout = duration(using: &random)
        config.backend.uploadInterval = duration(using: &random)
        config.backend.trainingsTTL = Int.random(in: 1...31_536_000, using: &random)
        config.state.directory = "/var/lib/ftms \(name(using: &random))"
        config.metricsSocket = .init(path: "/run/m\(Int.random(in: 0...999, using: &random)).sock", group: ["", "gym", "bluetooth"].randomElement(using: &random) ?? "",
                                     mode: [0o600, 0o640, 0o660, 0o666, 0o700].randomElement(using: &random) ?? 0o660, maxClients: Int.random(in: 1...4096, using: &random))
        config.controlSocket = .init(path: "/run/c\(Int.random(in: 0...999, using: &random)).sock", mode: Bool.random(using: &random) ? 0o600 : 0o700,
                                     maxClients: Int.random(in: 1...4096, using: &random))
        config.prometheus.enabled = Bool.random(using: &random)
        config.prometheus.listen = ["127.0.0.1", "127.1.2.3", "[::1]", "localhost"].randomElement(using: &random).map { "\($0):\(Int.random(in: 1...65535, using: &random))" } ?? ""
        config.log.level = levels.randomElement(using: &random) ?? "info"
        config.bluetooth.busAddress = Bool.random(using: &random) ? "" : "unix:path=/tmp/b\(Int.random(in: 0...99, using: &random))/bus;tcp:host=localhost,port=1"
        return config
    }

    /// Without repeats, in order (a `Set` would make the order differ from run to run).
    static func unique(_ values: [String]) -> [String] {
        values.enumerated().filter { !values[..<$0.offset].contains($0.element) }.map(\.element)
    }

    /// 1 ms to a day, at millisecond resolution (what the file keeps).
    static func duration(using random: inout SplitMix64) -> Duration {
        Bool.random(using: &random) ? .seconds(Int.random(in: 1...86_400, using: &random)) : .milliseconds(Int.random(in: 1...86_400_000, using: &random))
    }

    static func name(using random: inout SplitMix64) -> String {
        var text = String((0..<Int.random(in: 1...20, using: &random)).map { _ in nameCharacters.randomElement(using: &random) ?? "a" })
        // Names may not start or end with spaces.
        text = text.trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? "SF-Bike-0001" : text
    }
}

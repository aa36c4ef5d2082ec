import JSON
import BlueZ
import Clocks
import DaemonConfig
import MQTT

/// Check 6b: the MQTT broker of `[mqtt]` (docs/mqtt.md): reachable, TLS accepted, login
/// accepted. One real connection with the daemon's own client and settings (password from
/// its 0600 file), a probe client id so the running daemon's session is not taken over, and
/// a clean disconnect, so no last will fires.
struct BrokerCheck: Sendable {
    static let id = "mqtt"
    static let title = "MQTT broker"

    var settings: DaemonConfig.MQTT
    var timeout: Duration

    func run() async -> CheckResult {
        var data: [String: JSONValue] = ["enabled": .bool(settings.enabled), "broker": .string(settings.broker)]
        guard settings.enabled else {
            return CheckResult(id: Self.id, title: Self.title, status: .skipped, detail: "MQTT is off ([mqtt] enabled = false)", data: data)
        }
        let configuration: MQTTConfiguration
        do {
            configuration = try ProbeConnection.configuration(
                settings, clientID: "ftms-bridge-doctor-\(UInt32.random(in: 0...UInt32.max))", timeout: timeout)
        } catch {
            return CheckResult(id: Self.id, title: Self.title, status: .failed, detail: "\(error)", hint: "fix [mqtt] in the config", data: data)
        }
        let broker = configuration.broker
        data["tls"] = .bool(broker.tls)
        data["authenticated_as"] = .optional(settings.username.isEmpty ? nil : settings.username)
        let client: MQTTClient
        do {
            client = try MQTTClient(configuration)
            try client.start()
        } catch {
            return CheckResult(id: Self.id, title: Self.title, status: .failed, detail: "\(error)", data: data)
        }
        let started = ContinuousClock.now
        let outcome = await ProbeConnection.firstOutcome(client, timeout: timeout)
        let elapsed = ContinuousClock.now - started
        await client.stop(flushTimeout: .zero)
        data["elapsed_ms"] = .integer(Int64(Seconds.milliseconds(elapsed)))
        switch outcome {
        case .connected:
            data["reachable"] = true
            data["accepted"] = true
            let how = (broker.tls ? "TLS, " : "") + (settings.username.isEmpty ? "no login" : "logged in as \(settings.username)")
            return CheckResult(id: Self.id, title: Self.title, status: .ok, detail: "\(broker) accepts the gateway (\(how)) in \(Seconds.text(elapsed))", data: data)
        case .connectFailed(let reason, _), .connectionLost(let reason, _):
            data["accepted"] = false
            data["error"] = .string(reason)
            let hint = reason.contains("not authorised") || reason.contains("user name or password")
                ? "check [mqtt] username and the password in password_file against the broker's password file"
                : reason.contains("TLS") ? "check [mqtt] ca_file: the CA that signed the broker's certificate, issued for this host name"
                : "check the broker is running, the URL and the firewall; the daemon retries forever meanwhile"
            return CheckResult(id: Self.id, title: Self.title, status: .failed, detail: reason, hint: hint, data: data)
        case nil:
            data["reachable"] = false
            return CheckResult(
                id: Self.id, title: Self.title, status: .failed, detail: "no answer from \(broker) in \(Seconds.text(timeout))",
                hint: "check the broker's host, port and the firewall", data: data)
        }
    }
}

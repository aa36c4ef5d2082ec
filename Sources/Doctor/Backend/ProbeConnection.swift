import Clocks
import DaemonConfig
import MQTT
import RetryTiming

/// How the doctor's MQTT checks connect: the daemon's own `[mqtt]` settings (password from its
/// 0600 file), a client id of their own so the running daemon's session is not taken over, and
/// one attempt per check (the backoff outlasts the check's limit).
enum ProbeConnection {
    /// Throws the config's own error: a broker URL that does not parse, an unsafe password file.
    static func configuration(_ settings: DaemonConfig.MQTT, clientID: String, timeout: Duration) throws -> MQTTConfiguration {
        let broker = try BrokerURL(parsing: settings.broker)
        let password = settings.passwordFile.isEmpty ? nil : try PasswordFile.read(settings.passwordFile)
        return MQTTConfiguration(
            broker: broker, clientID: clientID, username: settings.username.isEmpty ? nil : settings.username, password: password,
            caFile: settings.caFile.isEmpty ? nil : settings.caFile, keepalive: 10, backoff: Backoff(initial: timeout * 2, maximum: timeout * 2))
    }

    /// The client's first connection event (connected, or why not), or nil after `timeout`.
    static func firstOutcome(_ client: MQTTClient, timeout: Duration) async -> MQTTEvent? {
        await withTimeout(timeout) {
            var events = client.events.makeAsyncIterator()
            return await events.next()
        } ?? nil
    }
}

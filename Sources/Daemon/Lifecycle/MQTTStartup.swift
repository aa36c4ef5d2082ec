import ProcessOutput
import DaemonConfig
import Logging
import MQTT
import RetryTiming
import Telemetry

#if canImport(Glibc)
import Glibc
#endif

/// `[mqtt]` turned into a running ``MQTTPublisher``: the client's configuration (client id
/// from the device id, the password from its 0600 file, the last will), and a task that
/// turns the client's events into log lines and Prometheus series.
///
/// A broker that is down, refuses the login or fails TLS is never a reason not to start: it is
/// logged once per distinct reason and retried forever. Only a config that cannot work (an
/// unreadable or group-readable password file, a bad URL) stops the daemon at start.
enum MQTTStartup {
    static func publisher(
        _ settings: DaemonConfig.MQTT, deviceID: String, clock: DaemonClock, timers: any Clock<Duration>
    ) throws -> MQTTPublisher {
        let topics = MQTTTopics(prefix: settings.topicPrefix, gateway: gatewayName(settings))
        let client = try client(settings, deviceID: deviceID, will: MQTTPublisher.will(topics))
        let interval = Duration.milliseconds(Int64((1000 / settings.sampleRate).rounded()))
        return MQTTPublisher(
            client: client, topics: topics, kinds: Set(settings.publish), sampleInterval: interval,
            discovery: settings.homeAssistant ? HomeAssistantDiscovery(prefix: settings.discoveryPrefix, topics: topics) : nil,
            now: { clock.now().monotonic }, timers: timers)
    }

    /// The MQTT client `[mqtt]` describes, with `will` as its last will; `suffix` is added to the
    /// client id (a second connection of the same gateway needs an id of its own) and
    /// `keepalive` overrides the configured one, and `backoff` the reconnect backoff.
    static func client(
        _ settings: DaemonConfig.MQTT, deviceID: String, will: OutgoingMessage, suffix: String = "", keepalive: Int? = nil,
        backoff: Backoff? = nil
    ) throws -> MQTTClient {
        let broker: BrokerURL
        do {
            broker = try BrokerURL(parsing: settings.broker)
        } catch {
            throw DaemonError("mqtt.broker: \(error)")
        }
        let password: String?
        do {
            password = settings.passwordFile.isEmpty ? nil : try PasswordFile.read(settings.passwordFile)
        } catch {
            throw DaemonError("mqtt.password_file \(error)")
        }
        if broker.tls, !settings.caFile.isEmpty, access(settings.caFile, R_OK) != 0 {
            throw DaemonError("mqtt.ca_file \(settings.caFile): \(errnoText(errno))")
        }
        var configuration = MQTTConfiguration(
            broker: broker, clientID: (settings.clientID.isEmpty ? "ftms-bridge-\(deviceID)" : settings.clientID) + suffix,
            username: settings.username.isEmpty ? nil : settings.username, password: password,
            caFile: settings.caFile.isEmpty ? nil : settings.caFile, keepalive: keepalive ?? settings.keepalive,
            will: will, queueCapacity: settings.queueCapacity)
        if let backoff { configuration.backoff = backoff }
        do {
            return try MQTTClient(configuration)
        } catch {
            throw DaemonError("mqtt: \(error)")
        }
    }

    /// This gateway's name on MQTT: `[mqtt] gateway`, else the host name.
    static func gatewayName(_ settings: DaemonConfig.MQTT) -> String {
        settings.gateway.isEmpty ? hostName() : settings.gateway
    }

    /// Connects in the background, says `online`, watches the connection and clears the
    /// Home Assistant entities of machines no longer allowed.
    /// Returns the Prometheus series, for the watchdog's probe to keep the queue figures current.
    static func begin(_ mqtt: MQTTPublisher, metrics: DaemonMetrics, allow: [String], logger: Logger) throws -> MQTTMetrics {
        do {
            try mqtt.start()
        } catch {
            throw DaemonError("mqtt: \(error)")
        }
        let series = MQTTMetrics(registry: metrics.registry)
        _ = watch(mqtt.client, logger: logger, metrics: series)
        Task { await mqtt.removeEntities(keeping: allow, window: .seconds(5), logger: logger) }
        logger.info("MQTT: publishing to \(mqtt.client.configuration.broker) under \(mqtt.topics.base)/")
        return series
    }

    /// Logs the client's events (each distinct failure once, until a connection succeeds) and
    /// keeps the Prometheus series current. Ends when the client stops.
    static func watch(_ client: MQTTClient, logger: Logger, metrics: MQTTMetrics) -> Task<Void, Never> {
        Task {
            var lastReason: String?
            for await event in client.events {
                switch event {
                case .connected:
                    metrics.setConnected(true)
                    logger.info("MQTT: connected to \(client.configuration.broker) as \(client.configuration.clientID)")
                    lastReason = nil
                case .connectFailed(let reason, let retry), .connectionLost(let reason, let retry):
                    metrics.failed(reason)
                    if reason != lastReason {
                        logger.warning("MQTT: \(reason); retrying in \(retry) and for as long as it takes")
                    } else {
                        logger.debug("MQTT: \(reason)")
                    }
                    lastReason = reason
                }
                let status = client.status
                metrics.observe(queued: status.queued, delivered: status.delivered, dropped: status.dropped)
            }
        }
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "gateway" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let cleaned = String(name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_" || scalar == ".")
                ? Character(scalar) : "-"
        })
        return cleaned.isEmpty ? "gateway" : String(cleaned.prefix(64))
    }
}

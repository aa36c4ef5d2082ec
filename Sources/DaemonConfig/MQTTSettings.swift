extension DaemonConfig {
    /// `[mqtt]`: live data and machine state on an MQTT broker (docs/mqtt.md). Off by default.
    package struct MQTT: Sendable, Equatable {
        package var enabled = false
        /// `mqtt://host[:port]` or `mqtts://host[:port]` (TLS).
        package var broker = "mqtt://127.0.0.1:1883"
        /// MQTT client id; empty: `ftms-bridge-` and the gateway's device id.
        package var clientID = ""
        /// First topic level of everything the gateway publishes.
        package var topicPrefix = "ftms-bridge"
        /// Second topic level: this gateway; empty: the host name.
        package var gateway = ""
        /// Login name; empty: connect without a login.
        package var username = ""
        /// File holding the password (first line), mode 0600 or stricter.
        package var passwordFile = ""
        /// PEM CA file that signed the broker's certificate (mqtts); empty: the system's trust store.
        package var caFile = ""
        /// MQTT keepalive: a vanished gateway shows `offline` within 1.5 times this.
        package var keepalive = 30
        /// Most `sample` messages per machine per second (latest wins).
        package var sampleRate = 1.0
        /// Which topics to publish besides `status`: `state`, `sample`, `session`, `upload`.
        package var publish = ["state", "sample", "session", "upload"]
        /// Home Assistant MQTT discovery under `discovery_prefix`.
        package var homeAssistant = true
        package var discoveryPrefix = "homeassistant"
        /// Most messages waiting for the broker; samples are dropped first.
        package var queueCapacity = 1000
        package init() {}
    }
}

extension DaemonConfig {
    /// `[mqtt]`: live data and machine state on an MQTT broker (docs/mqtt.md). Off by default.
    public struct MQTT: Sendable, Equatable {
        public var enabled = false
        /// `mqtt://host[:port]` or `mqtts://host[:port]` (TLS).
        public var broker = "mqtt://127.0.0.1:1883"
        /// MQTT client id; empty: `ftms-bridge-` and the gateway's device id.
        public var clientID = ""
        /// First topic level of everything the gateway publishes.
        public var topicPrefix = "ftms-bridge"
        /// Second topic level: this gateway; empty: the host name.
        public var gateway = ""
        /// Login name; empty: connect without a login.
        public var username = ""
        /// File holding the password (first line), mode 0600 or stricter.
        public var passwordFile = ""
        /// PEM CA file that signed the broker's certificate (mqtts); empty: the system's trust store.
        public var caFile = ""
        /// MQTT keepalive: a vanished gateway shows `offline` within 1.5 times this.
        public var keepalive = 30
        /// Most `sample` messages per machine per second (latest wins).
        public var sampleRate = 1.0
        /// Which topics to publish besides `status`: `state`, `sample`, `session`, `upload`.
        public var publish = ["state", "sample", "session", "upload"]
        /// Home Assistant MQTT discovery under `discovery_prefix`.
        public var homeAssistant = true
        public var discoveryPrefix = "homeassistant"
        /// Most messages waiting for the broker; samples are dropped first.
        public var queueCapacity = 1000
        public init() {}
    }
}

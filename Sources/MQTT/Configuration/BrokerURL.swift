import HostPort

/// A broker address from `mqtt://host[:port]` or `mqtts://host[:port]` (TLS). Default ports are
/// MQTT's registered ones: 1883, and 8883 for TLS. An IPv6 literal is written in brackets.
public struct BrokerURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var tls: Bool

    public init(host: String, port: Int, tls: Bool) {
        self.host = host
        self.port = port
        self.tls = tls
    }

    /// Parses `text`; the error says what is wrong in words an operator can act on.
    public init(parsing text: String) throws(MQTTConfigurationError) {
        let rest: Substring
        if text.hasPrefix("mqtt://") {
            tls = false
            rest = text.dropFirst("mqtt://".count)
        } else if text.hasPrefix("mqtts://") {
            tls = true
            rest = text.dropFirst("mqtts://".count)
        } else {
            throw .invalid("broker URL \"\(text)\" must start with mqtt:// or mqtts://")
        }
        var authority = rest
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        guard !authority.isEmpty, !authority.contains("/"), !authority.contains("@"), !authority.contains("?") else {
            throw .invalid("broker URL \"\(text)\" must be mqtt[s]://host[:port], with no path, user or query")
        }
        let parsed: HostPort
        do {
            parsed = try HostPort(parsing: authority)
        } catch .unclosedBracket {
            throw .invalid("broker URL \"\(text)\": unclosed [ in the host")
        } catch .textAfterBracket {
            throw .invalid("broker URL \"\(text)\": expected :port after ]")
        } catch .unbracketedIPv6 {
            throw .invalid("broker URL \"\(text)\": write an IPv6 address in brackets (mqtt://[fd00::1]:1883)")
        } catch {
            throw .invalid("broker URL \"\(text)\": port must be 1-65535")
        }
        host = parsed.host
        guard !host.isEmpty else { throw .invalid("broker URL \"\(text)\" has no host") }
        guard parsed.port != 0 else { throw .invalid("broker URL \"\(text)\": port must be 1-65535") }
        port = parsed.port ?? (tls ? 8883 : 1883)
    }

    public var description: String {
        "\(tls ? "mqtts" : "mqtt")://" + HostPort.text(host: host, port: port)
    }
}

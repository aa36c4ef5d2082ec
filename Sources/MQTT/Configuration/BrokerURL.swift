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
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalid("broker URL \"\(text)\": unclosed [ in the host") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalid("broker URL \"\(text)\": expected :port after ]") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty else { throw .invalid("broker URL \"\(text)\" has no host") }
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else {
                throw .invalid("broker URL \"\(text)\": port must be 1-65535")
            }
            self.port = port
        } else {
            port = tls ? 8883 : 1883
        }
    }

    public var description: String {
        "\(tls ? "mqtts" : "mqtt")://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}

import HostPort

/// The `[mqtt]` section's string rules. The broker URL is checked here by its shape only (the
/// MQTT module parses it again when it connects), so DaemonConfig needs no MQTT dependency.
extension StringRules {
    static let mqttTopicKinds = ["state", "sample", "session", "upload"]

    static func brokerURL(_ text: String) throws(ValueProblem) {
        let rest: Substring
        if text.hasPrefix("mqtt://") {
            rest = text.dropFirst(7)
        } else if text.hasPrefix("mqtts://") {
            rest = text.dropFirst(8)
        } else {
            throw .invalid("must be an mqtt:// or mqtts:// URL, got \(OneLine.quoted(text))")
        }
        let authority = rest.hasSuffix("/") ? rest.dropLast() : rest
        guard !authority.isEmpty, !authority.hasPrefix(":") else { throw .invalid("must name a host, got \(OneLine.quoted(text))") }
        guard !authority.contains("@") else {
            throw .invalid("must not carry a user or password (use username and password_file)")
        }
        guard !authority.contains("/"), !authority.contains("?"), !authority.contains("#"),
              !authority.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " })
        else { throw .invalid("must be mqtt[s]://host[:port] with no path or query, got \(OneLine.quoted(text))") }
        let port: Int?
        do {
            port = try HostPort(parsing: authority).port
        } catch .badPort {
            throw .invalid("must have a port from 1 to 65535, got \(OneLine.quoted(text))")
        } catch {
            throw .invalid("must be mqtt[s]://host[:port] with no path or query (an IPv6 host in brackets), got \(OneLine.quoted(text))")
        }
        guard port != 0 else { throw .invalid("must have a port from 1 to 65535, got \(OneLine.quoted(text))") }
    }

    /// Client ids and user names: printable, no spaces, at most 128 bytes (empty: the default).
    static func mqttClientID(_ text: String) throws(ValueProblem) {
        guard text.utf8.count <= 128,
              !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " })
        else { throw .invalid("must be at most 128 bytes with no spaces or control characters, got \(OneLine.quoted(text))") }
    }

    /// Topic levels joined by `/`, each one a ``topicLevel``; not empty.
    static func topicPrefix(_ text: String) throws(ValueProblem) {
        guard !text.isEmpty else { throw .invalid("must not be empty") }
        for level in text.split(separator: "/", omittingEmptySubsequences: false) {
            guard !level.isEmpty else { throw .invalid("must not have an empty level (// or a leading or trailing /), got \(OneLine.quoted(text))") }
            try topicLevel(String(level))
        }
    }

    /// One topic level: letters, digits, `-`, `_`, `.` (no MQTT wildcard, no `/`); empty: the default.
    static func topicLevel(_ text: String) throws(ValueProblem) {
        let allowed = text.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard allowed, text.utf8.count <= 64 else {
            throw .invalid("must be letters, digits, - _ . (at most 64), got \(OneLine.quoted(text))")
        }
    }

    static func mqttTopicKind(_ text: String) throws(ValueProblem) {
        guard mqttTopicKinds.contains(text) else {
            throw .invalid("must be one of \(mqttTopicKinds.joined(separator: ", ")), got \(OneLine.quoted(text))")
        }
    }
}

/// `host:port` as a listen address and a broker URL write it: an IPv6 literal in brackets
/// (`[::1]:9464`), the port left out where the caller has a default.
///
/// The one place these are split. Each caller keeps its own rules on top (the dashboard's
/// empty host is loopback, a broker's port 0 is refused, Prometheus listens on loopback
/// only) and words its own errors, so this only says what is wrong with the text.
public struct HostPort: Sendable, Equatable {
    /// Without the brackets; may be empty (`:8088`).
    public var host: String
    /// `nil` when the text names no port.
    public var port: Int?

    public init(host: String, port: Int?) {
        self.host = host
        self.port = port
    }

    /// Splits `text`. A port is up to five ASCII digits, 0 to 65535; an IPv6 literal without
    /// brackets is refused rather than split at its last colon (`::1:9464` would otherwise
    /// read as host `::1`, port 9464, or as host `:`, port 1).
    public init(parsing text: some StringProtocol) throws(HostPortError) {
        let text = Substring(text)
        let portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .unclosedBracket }
            host = String(text[text.index(after: text.startIndex)..<close])
            let after = text[text.index(after: close)...]
            if after.isEmpty {
                portText = nil
            } else {
                guard after.hasPrefix(":") else { throw .textAfterBracket }
                portText = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            guard !host.contains(":") else { throw .unbracketedIPv6 }
            portText = text[text.index(after: colon)...]
        } else {
            host = String(text)
            portText = nil
        }
        guard let portText else {
            port = nil
            return
        }
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = Int(portText), (0...65535).contains(port)
        else { throw .badPort(String(portText)) }
        self.port = port
    }

    /// `host:port`, the host in brackets when it is an IPv6 literal.
    public static func text(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// What is wrong with a `host:port`; the caller says it in its own terms.
public enum HostPortError: Error, Equatable, Sendable {
    /// `[::1` or `[::1:80`.
    case unclosedBracket
    /// `[::1]80`: after the bracket comes `:port` or nothing.
    case textAfterBracket
    /// `::1:9464`: an IPv6 literal is written in brackets.
    case unbracketedIPv6
    /// Not a number from 0 to 65535 (the text after the colon).
    case badPort(String)
}

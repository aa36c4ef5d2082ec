import HostPort

/// `[prometheus] listen`: `host:port` on loopback only.
///
/// The scrape endpoint has no authentication, so it must not be reachable from the gym's
/// network; a wider address is an error, not a warning.
struct LoopbackListenAddress: Equatable {
    var host: String
    var port: Int

    init(parsing text: String) throws(ValueProblem) {
        let usage = "must be host:port on loopback (127.0.0.1:9464, [::1]:9464, localhost:9464), got \(OneLine.quoted(text))"
        let parsed: HostPort
        do {
            parsed = try HostPort(parsing: text)
        } catch .unbracketedIPv6 {
            throw .invalid("must write an IPv6 address in brackets ([::1]:9464), got \(OneLine.quoted(text))")
        } catch .badPort {
            throw .invalid("must end in a port from 0 (any free port, logged at start) to 65535, got \(OneLine.quoted(text))")
        } catch {
            throw .invalid(usage)
        }
        guard let port = parsed.port else { throw .invalid(usage) }
        guard ListenScope(host: parsed.host) == .loopback else {
            throw .invalid("must be a loopback address (127.0.0.0/8, [::1] or localhost): the endpoint has no authentication, got \(OneLine.quoted(text))")
        }
        host = parsed.host
        self.port = port
    }
}

extension DaemonConfig.Prometheus {
    /// `listen` split into what a server binds: host (without brackets) and port. Throws for
    /// a value ``DaemonConfig/parse(_:source:)`` would have refused.
    package func listenAddress() throws(ConfigError) -> (host: String, port: Int) {
        do {
            let address = try LoopbackListenAddress(parsing: listen)
            return (address.host, address.port)
        } catch {
            throw ConfigError(error.kind, source: "config", key: "prometheus.listen", problem: error.message)
        }
    }
}

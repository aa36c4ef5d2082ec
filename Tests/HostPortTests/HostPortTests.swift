import HostPort
import Testing

/// Every spelling the dashboard's `--listen`, `[prometheus] listen` and a broker URL's
/// authority take or refuse, split in one place.
@Suite("host:port")
struct HostPortTests {
    @Test(arguments: [
        ("127.0.0.1:9464", HostPort(host: "127.0.0.1", port: 9464)),
        ("localhost:0", HostPort(host: "localhost", port: 0)),
        (":8088", HostPort(host: "", port: 8088)),
        ("[::1]:9464", HostPort(host: "::1", port: 9464)),
        ("[fd00::1]", HostPort(host: "fd00::1", port: nil)),
        ("broker.local", HostPort(host: "broker.local", port: nil)),
        ("10.0.0.5:65535", HostPort(host: "10.0.0.5", port: 65535)),
    ])
    func splits(text: String, expected: HostPort) throws {
        #expect(try HostPort(parsing: text) == expected)
    }

    @Test(arguments: [
        ("[::1", HostPortError.unclosedBracket),
        ("[::1]9464", .textAfterBracket),
        ("::1:9464", .unbracketedIPv6),
        ("fd00::1", .unbracketedIPv6),
        ("127.0.0.1:", .badPort("")),
        ("127.0.0.1:65536", .badPort("65536")),
        ("127.0.0.1:099999", .badPort("099999")),
        ("127.0.0.1:+80", .badPort("+80")),
        ("127.0.0.1:٨٠", .badPort("٨٠")),
        ("[::1]:x", .badPort("x")),
    ])
    func refuses(text: String, error: HostPortError) {
        #expect(throws: error) { try HostPort(parsing: text) }
    }

    @Test func writesAnIPv6HostInBrackets() {
        #expect(HostPort.text(host: "::1", port: 9464) == "[::1]:9464")
        #expect(HostPort.text(host: "127.0.0.1", port: 80) == "127.0.0.1:80")
    }
}

/// Loopback judged on the address for every listen address, whoever reads it.
@Suite("Listen scope")
struct ListenScopeTests {
    @Test(arguments: [
        ("127.0.0.1", ListenScope.loopback), ("127.255.0.9", .loopback), ("localhost", .loopback), ("LocalHost", .loopback),
        ("::1", .loopback), ("0:0:0:0:0:0:0:1", .loopback),
        ("0.0.0.0", .wider), ("192.168.1.5", .wider), ("128.0.0.1", .wider), ("::", .wider), ("::2", .wider), ("::ffff:127.0.0.1", .wider),
        ("example.com", .notAnAddress), ("127.1", .notAnAddress), ("127.0.0.256", .notAnAddress), ("", .notAnAddress), ("[::1]", .notAnAddress),
    ])
    func judged(host: String, scope: ListenScope) {
        #expect(ListenScope(host: host) == scope)
    }
}

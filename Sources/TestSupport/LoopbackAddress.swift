#if canImport(Glibc)
public import Glibc
#endif

/// 127.0.0.1 and a TCP port as the socket calls take it: the one `sockaddr_in` the tests and
/// their private servers build (a broker's port probe, a silent HTTP server, a doctor's target).
public enum LoopbackAddress {
    /// Calls `body` with 127.0.0.1:`port` (0: the kernel picks one at bind(2)) as a `sockaddr`
    /// and its length, as bind(2), connect(2) and getsockname(2) take them; returns what `body`
    /// returned and the port the address holds afterwards (getsockname(2)'s, when `body` asked).
    public static func with<Result>(
        port: UInt16 = 0, _ body: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) throws -> Result
    ) rethrows -> (result: Result, port: UInt16) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(port.bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, &length) }
        }
        return (result, UInt16(bigEndian: address.sin_port))
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// strerror's text for `code`, through the re-entrant call: the daemon has other threads, and
/// strerror(3) may return a buffer another thread is rewriting. Every message that names an
/// errno goes through this one.
package func errnoText(_ code: Int32) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
        guard let base = buffer.baseAddress, strerror_r(code, base, buffer.count) == 0 else { return "errno \(code)" }
        return String(cString: base)
    }
}

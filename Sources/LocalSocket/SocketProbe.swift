#if canImport(Glibc)
import Glibc
#endif

/// Asks whether anyone is listening on a socket file, the way a reader would: by connecting.
package enum SocketProbe {
    package enum Result: Equatable, Sendable {
        case listening
        /// The file is there but nothing accepts: the owner died.
        case stale
        /// The file vanished meanwhile.
        case gone
        case failed(Int32)
    }

    /// One attempt, not waited on, so a live daemon with a full accept backlog (`EAGAIN`)
    /// does not hang the new daemon's start; that also means "listening".
    package static func connect(_ path: String) -> Result {
        do {
            _ = try UnixStream.connect(to: path, deadline: .now)
            return .listening
        } catch .timedOut {
            return .listening
        } catch .cannotConnect(errno: ECONNREFUSED) {
            return .stale
        } catch .cannotConnect(errno: ENOENT) {
            return .gone
        } catch .cannotConnect(let code), .system(_, let code) {
            return .failed(code)
        } catch {
            return .failed(ENAMETOOLONG)
        }
    }
}

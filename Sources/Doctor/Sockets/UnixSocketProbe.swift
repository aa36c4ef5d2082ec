import LocalSocket
import OwnThread

#if canImport(Glibc)
import Glibc
#endif

/// The doctor's look at one of the daemon's Unix sockets: connect, optionally send one request
/// line, and read the first line back, never waiting past a deadline, through the sockets' one
/// client (``UnixStream``, plain blocking POSIX: the probe must work when everything else is
/// broken, and one short exchange needs no event loop).
enum UnixSocketProbe {
    enum Outcome: Sendable, Hashable {
        /// Connected, and the first line came.
        case answered(String)
        /// `connect` failed: the errno.
        case refused(Int32)
        /// Connected, but no complete line in time.
        case silent
    }

    /// The longest first line read (a `hello` carrying many machines is long, but not this long).
    static let lineLimit = 1 << 20

    /// Connects to `path`, sends `request` (one line, when given) and reads one line.
    static func probe(path: String, request: String?, timeout: Duration) async -> Outcome {
        await onOwnThread { run(path: path, request: request, deadline: ContinuousClock.now + timeout) }
    }

    private static func run(path: String, request: String?, deadline: ContinuousClock.Instant) -> Outcome {
        var stream: UnixStream
        do {
            stream = try UnixStream.connect(to: path, deadline: deadline, lineLimit: lineLimit)
        } catch {
            switch error {
            case .cannotConnect(let code), .system(_, let code): return .refused(code)
            case .pathTooLong: return .refused(ENAMETOOLONG)
            case .timedOut, .closed, .lineTooLong: return .refused(ETIMEDOUT)
            }
        }
        // A peer that already spoke and hung up refuses the request, but its line is still
        // there to read: so a failed send is not the end.
        if let request { try? stream.send(Array((request + "\n").utf8), deadline: deadline) }
        do {
            return .answered(String(decoding: try stream.readLine(deadline: deadline), as: UTF8.self))
        } catch {
            return .silent
        }
    }
}

import LocalSocket
import NIOCore
import ProcessOutput

/// Why a connection to the metrics socket ended, or was never made: a reader that reconnects
/// logs it, one that stops (`watch`) says it in its own words.
public enum MetricsSocketDisconnection: Sendable, Hashable, CustomStringConvertible {
    /// No connection was made (`No such file or directory`: no daemon; `Permission denied`: not
    /// in the socket's group).
    case cannotConnect(String)
    /// The daemon closed the stream (it stopped, or closed this reader for falling behind).
    case closed
    /// The connection failed while reading: a line over the client's limit, a reset.
    case failed(String)

    public var description: String {
        switch self {
        case .cannotConnect(let reason): "cannot connect: \(reason)"
        case .closed: "the gateway closed the stream"
        case .failed(let reason): reason
        }
    }

    /// A connect's failure, errno as `strerror` words.
    static func connecting(_ error: any Error) -> MetricsSocketDisconnection {
        switch error {
        case let error as IOError: .cannotConnect(errnoText(error.errnoCode))
        case SocketAddressError.unixDomainSocketPathTooLong:
            .cannotConnect("path too long for a Unix socket (at most \(UnixSocketAddress.maximumPathLength) bytes)")
        default: .cannotConnect("\(error)")
        }
    }

    /// A read's failure.
    static func reading(_ error: any Error) -> MetricsSocketDisconnection {
        switch error {
        case let error as IOError: .failed(errnoText(error.errnoCode))
        default: .failed("\(error)")
        }
    }
}

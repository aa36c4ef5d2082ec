import OwnThread
import TestSupport
@testable import Control
import LocalSocket
import Glibc

/// A Unix socket bound with plain POSIX calls, for what a real server never does: a file
/// nobody listens on (as a daemon killed by SIGKILL leaves), a listener that never accepts,
/// or a peer that answers with whatever a test scripts.
final class RawListener: @unchecked Sendable {
    let descriptor: Int32

    /// Binds `path`; listens only when `listening` (otherwise connecting is refused: stale).
    init(path: String, listening: Bool) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemCallFailed(call: "socket", code: errno) }
        let bound = UnixSocketAddress.with(path: path) { bind(descriptor, $0, $1) }
        guard bound == 0 else { throw SystemCallFailed(call: "bind", code: errno) }
        if listening { guard listen(descriptor, 16) == 0 else { throw SystemCallFailed(call: "listen", code: errno) } }
    }

    deinit {
        close(descriptor)
    }

    /// Accepts one client, reads up to its first newline, writes `answer` and closes; the
    /// blocking accept and reads happen on a thread of their own.
    func answerOnce(with answer: String) async {
        let descriptor = descriptor
        await onOwnThread { Self.answerOnce(on: descriptor, with: answer) }
    }

    private static func answerOnce(on descriptor: Int32, with answer: String) {
        let client = accept(descriptor, nil, nil)
        guard client >= 0 else { return }
        defer { close(client) }
        var byte: UInt8 = 0
        while recv(client, &byte, 1, 0) == 1, byte != UInt8(ascii: "\n") {}
        let bytes = Array(answer.utf8)
        _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}

import Glibc
import Systemd

/// What systemd's end of `NOTIFY_SOCKET` is: an `AF_UNIX` datagram socket, bound either in a
/// fresh directory under /tmp or in the abstract namespace, that the test reads.
final class NotifyReceiver {
    enum Kind { case path, abstract }

    let descriptor: Int32
    /// The value `NOTIFY_SOCKET` gets: the path, or `@name`.
    let notifySocket: String
    private let directory: String?
    private var isOpen = true

    init(_ kind: Kind) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw ReceiverFailure(call: "socket", code: errno) }
        var sunPath: [UInt8]
        switch kind {
        case .path:
            var template = Array("/tmp/sdnotify-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { close(descriptor); throw ReceiverFailure(call: "mkdtemp", code: errno) }
            directory = String(cString: made)
            notifySocket = String(cString: made) + "/notify"
            sunPath = Array(notifySocket.utf8) + [0]
        case .abstract:
            directory = nil
            let name = "ftms-bridge-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            notifySocket = "@" + name
            sunPath = [0] + Array(name.utf8)
        }
        // Built by hand, not by LocalSocket's UnixSocketAddress: this is the independent end
        // the notifier's address (an abstract one above all) is checked against.
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: sunPath) }
        let length = socklen_t(2 + sunPath.count)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else { close(descriptor); throw ReceiverFailure(call: "bind \(notifySocket)", code: errno) }
    }

    var environment: [String: String] { ["NOTIFY_SOCKET": notifySocket] }

    /// A notifier aimed at this receiver, as the daemon would make it under systemd.
    func notifier(monotonicMicroseconds: @escaping @Sendable () -> UInt64 = SystemdNotifier.systemMonotonicMicroseconds) -> SystemdNotifier {
        SystemdNotifier(environment: environment, monotonicMicroseconds: monotonicMicroseconds)
    }

    /// The next datagram's exact bytes, or nil if none arrives within `milliseconds`.
    func receive(within milliseconds: Int32 = 2000) -> [UInt8]? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, milliseconds) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 8192)
        let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        return count >= 0 ? Array(buffer.prefix(count)) : nil
    }

    /// The next datagram as text.
    func receiveText() -> String? {
        receive().map { String(decoding: $0, as: UTF8.self) }
    }

    /// Closes the socket but leaves its file, as a manager that died would.
    func closeLeavingFile() {
        if isOpen { close(descriptor) }
        isOpen = false
    }

    deinit {
        closeLeavingFile()
        if let directory {
            unlink(notifySocket)
            rmdir(directory)
        }
    }
}

struct ReceiverFailure: Error, CustomStringConvertible {
    var call: String
    var code: Int32
    var description: String { "\(call) failed: errno \(code)" }
}

import Glibc

/// What the kernel reports happening in one directory (inotify(7)), name by name: a witness
/// that does not depend on winning a race with the code under test, as polling does. The
/// socket tests use it to see how a socket file arrives at its path.
public final class DirectoryEvents {
    public struct Event: Equatable, CustomStringConvertible {
        public var name: String
        public var mask: UInt32

        public var isDirectory: Bool { mask & UInt32(IN_ISDIR) != 0 }
        public func `is`(_ kind: Int32) -> Bool { mask & UInt32(kind) != 0 }
        public var description: String { "\(name) 0x\(String(mask, radix: 16))" }
    }

    /// inotify(7) could not be set up.
    public struct Unavailable: Error, CustomStringConvertible {
        public let call: String
        public let code: Int32
        public var description: String { "\(call) failed: errno \(code)" }
    }

    private let descriptor: Int32

    public init(watching directory: String) throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw Unavailable(call: "inotify_init1", code: errno) }
        let mask = UInt32(IN_CREATE | IN_ATTRIB | IN_MOVED_TO | IN_DELETE)
        guard inotify_add_watch(descriptor, directory, mask) >= 0 else {
            close(descriptor)
            throw Unavailable(call: "inotify_add_watch", code: errno)
        }
    }

    deinit {
        close(descriptor)
    }

    /// Every event queued so far.
    public func drain() -> [Event] {
        var events: [Event] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return events }
            var offset = 0
            buffer.withUnsafeBytes { raw in
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    let name = String(decoding: raw[nameStart..<(nameStart + length)].prefix { $0 != 0 }, as: UTF8.self)
                    events.append(Event(name: name, mask: mask))
                    offset = nameStart + length
                }
            }
        }
    }
}

import Glibc
import NIOPosix
import LocalSocket
import CivilTime
import Clocks
import Publish
import TestSupport
import Testing

/// The socket file: made where asked, stale ones replaced, live ones refused, 0660 and the
/// configured group, and gone after close.
@Suite("Socket file")
struct SocketFileTests {
    static func status(_ path: String) -> stat? {
        var status = stat()
        return lstat(path, &status) == 0 ? status : nil
    }

    static func currentGroupName() throws -> String {
        guard let group = getgrgid(getegid()) else { throw SystemCallFailed(call: "getgrgid", code: errno) }
        return String(cString: group.pointee.gr_name)
    }

    /// A socket file nobody listens on, as a daemon killed with SIGKILL leaves behind.
    static func makeStaleSocket(at path: String) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SystemCallFailed(call: "socket", code: errno) }
        defer { close(descriptor) }
        let bound = UnixSocketAddress.with(path: path) { bind(descriptor, $0, $1) }
        guard bound == 0 else { throw SystemCallFailed(call: "bind", code: errno) }
    }

    static func listen(_ path: String, on group: MultiThreadedEventLoopGroup, socketGroup: String? = nil) async throws -> MetricsServer {
        try await MetricsServer.listen(
            MetricsServerConfiguration(path: path, group: socketGroup, daemonVersion: "test"), on: group.next(), clock: .fixed(UTCTime(millisecondsSince1970: 0)))
    }

    @Test func createsDirectoriesAndSetsMode0660AndGroup() async throws {
        let group = try Self.currentGroupName()
        try await withServer(group: group) { fixture in
            let status = try #require(Self.status(fixture.path))
            #expect(status.st_mode & S_IFMT == S_IFSOCK)
            #expect(status.st_mode & 0o7777 == 0o660)
            #expect(status.st_gid == getegid())
            let directory = try #require(Self.status(fixture.directory.path + "/run"))
            #expect(directory.st_mode & S_IFMT == S_IFDIR)
            let (_, hello) = try await fixture.connectPastHello()
            #expect(hello.hasPrefix(#"{"type":"hello""#))
        }
    }

    /// The kernel's account of the socket's directory: the socket arrives at its path only by
    /// rename(2), its group and mode already set; a bind at the path would show as a create,
    /// a chmod or chown after it as an attribute change, and a reader could connect between.
    @Test func theSocketArrivesOnlyByRenameWithItsModeAlreadySet() async throws {
        let directory = try TemporaryDirectory()
        let events = try DirectoryEvents(watching: directory.path)
        try await withLoopGroup { loops in
            for _ in 0..<3 {
                let server = try await Self.listen(directory.path + "/metrics.sock", on: loops)
                await server.close()
            }
        }
        let seen = events.drain()
        #expect(seen.filter { $0.name == "metrics.sock" && $0.is(IN_MOVED_TO) }.count == 3)
        #expect(!seen.contains { $0.is(IN_ATTRIB) }, "\(seen)")
        #expect(seen.filter { $0.is(IN_CREATE) }.allSatisfy { $0.isDirectory && $0.name.hasPrefix(".metrics.sock.") }, "\(seen)")
    }

    @Test func closeRemovesTheSocketFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/metrics.sock"
        try await withLoopGroup { loops in
            let server = try await Self.listen(path, on: loops)
            let reader = try await TestReader.connect(path, on: loops)
            _ = try await reader.line()
            #expect(Self.status(path) != nil)
            await server.close()
            #expect(Self.status(path) == nil)
            try await reader.waitClosed()
            #expect(await server.metrics.readersConnected == 0)
        }
    }

    @Test func staleSocketIsReplaced() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/metrics.sock"
        try Self.makeStaleSocket(at: path)
        #expect(try #require(Self.status(path)).st_mode & S_IFMT == S_IFSOCK)
        try await withLoopGroup { loops in
            // Before: a socket file nobody answers on.
            await #expect(throws: (any Error).self) { try await TestReader.connect(path, on: loops) }
            let server = try await Self.listen(path, on: loops)
            let reader = try await TestReader.connect(path, on: loops)
            #expect(try await reader.line().hasPrefix(#"{"type":"hello""#))
            await server.close()
        }
    }

    /// A second daemon on the same path is refused with one clear line, and the first one
    /// keeps its socket and its readers.
    @Test func liveSocketIsRefused() async throws {
        try await withServer { fixture in
            let (reader, _) = try await fixture.connectPastHello()
            try await withLoopGroup { second in
                await #expect(throws: LocalSocketError.alreadyListening(path: fixture.path)) {
                    try await Self.listen(fixture.path, on: second)
                }
            }
            #expect(!LocalSocketError.alreadyListening(path: fixture.path).description.contains("\n"))
            try await fixture.server.publish(.sample, machine: "m", payload: .empty)
            #expect(seq(try await reader.line()) == 1)
            let (_, hello) = try await fixture.connectPastHello()
            #expect(seq(hello) == 1)
        }
    }

    @Test func regularFileIsNotReplaced() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/metrics.sock"
        let file = fopen(path, "w")
        fclose(file)
        try await withLoopGroup { loops in
            await #expect(throws: LocalSocketError.notASocket(path: path)) { try await Self.listen(path, on: loops) }
        }
        #expect((Self.status(path)?.st_mode ?? 0) & S_IFMT == S_IFREG)
    }

    @Test func missingGroupIsAClearError() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/metrics.sock"
        try await withLoopGroup { loops in
            await #expect(throws: LocalSocketError.noSuchGroup("no-such-group-ftms")) {
                try await Self.listen(path, on: loops, socketGroup: "no-such-group-ftms")
            }
        }
        #expect(LocalSocketError.noSuchGroup("no-such-group-ftms").description == "group 'no-such-group-ftms' does not exist (create it, e.g. groupadd no-such-group-ftms, or configure another)")
        // Nothing was created: the group is checked before the file system is touched.
        #expect(Self.status(path) == nil)
    }

    @Test func tooLongPathIsAClearError() async throws {
        let path = "/tmp/" + String(repeating: "d", count: 110) + "/metrics.sock"
        try await withLoopGroup { loops in
            await #expect(throws: LocalSocketError.pathTooLong(path: path, limit: 93)) { try await Self.listen(path, on: loops) }
        }
    }
}

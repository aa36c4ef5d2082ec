import JSON
@testable import Control
import LocalSocket
import OwnThread
import TestSupport
import Foundation
import Glibc
import NIOPosix
import Synchronization
import Testing

/// The socket file: owner-only from its first instant, stale files replaced, live daemons and
/// other files refused, and gone after close.
@Suite("Control socket file")
struct SocketFileTests {
    static func listen(_ path: String, mode: UInt32 = 0o600, on group: MultiThreadedEventLoopGroup) async throws -> ControlServer {
        try await ControlServer.listen(ControlServerConfiguration(path: path, mode: mode), handler: EchoHandler(), on: group)
    }

    @discardableResult
    static func withGroup<Value>(_ body: (MultiThreadedEventLoopGroup) async throws -> Value) async throws -> Value {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let value = try await body(group)
            try await group.shutdownGracefully()
            return value
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    @Test func theSocketIs0600InADirectoryMadeForIt() async throws {
        try await withServer { fixture in
            let socket = try #require(TemporaryDirectory.status(fixture.path))
            #expect(socket.st_mode & S_IFMT == S_IFSOCK)
            #expect(socket.st_mode & 0o7777 == 0o600)
            #expect(socket.st_uid == geteuid())
            let directory = fixture.directory.path + "/run"
            #expect(try #require(TemporaryDirectory.status(directory)).st_mode & 0o7777 == 0o755)
            // The staging directory is gone: the socket is all there is.
            #expect(TemporaryDirectory.entries(directory) == ["control.sock"])
        }
    }

    @Test func aConfiguredModeHoldsToo() async throws {
        try await withServer(ControlServerConfiguration(path: ServerFixture.replacedPath, mode: 0o660)) { fixture in
            let socket = try #require(TemporaryDirectory.status(fixture.path))
            #expect(socket.st_mode & 0o7777 == 0o660)
        }
    }

    /// A watcher lists the directory as fast as it can while the server listens and closes,
    /// over and over: every socket it ever sees there is 0600, and the only other thing it may
    /// see is the 0700 staging directory, whose contents nobody else can reach.
    @Test func noOtherModeIsEverObservable() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/control.sock"
        let stop = Atomic<Bool>(false)
        // The watcher spins on a thread of its own: on the cooperative pool it held one of a
        // 2-core box's two threads for as long as the servers took, and hung a CI run once.
        let watcher = Task { await onOwnThread { () -> (sockets: Int, stagings: Int, wrong: [String]) in
            var sockets = 0
            var stagings = 0
            var wrong: [String] = []
            while !stop.load(ordering: .relaxed) {
                for name in TemporaryDirectory.entries(directory.path) {
                    guard let status = TemporaryDirectory.status(directory.path + "/" + name) else { continue }
                    switch status.st_mode & S_IFMT {
                    case S_IFSOCK where status.st_mode & 0o7777 == 0o600: sockets += 1
                    case S_IFDIR where status.st_mode & 0o7777 == 0o700: stagings += 1
                    default: wrong.append("\(name) \(String(status.st_mode, radix: 8))")
                    }
                }
            }
            return (sockets, stagings, wrong)
        } }
        do {
            try await Self.withGroup { group in
                for _ in 0..<40 {
                    let server = try await Self.listen(path, on: group)
                    await server.close()
                }
            }
        } catch {
            stop.store(true, ordering: .relaxed)
            _ = await watcher.value
            throw error
        }
        stop.store(true, ordering: .relaxed)
        let seen = await watcher.value
        #expect(seen.wrong.isEmpty, "seen: \(seen.wrong.prefix(5))")
        #expect(seen.sockets > 0)
    }

    /// The kernel's own account of the directory: the socket only ever arrives there by
    /// rename(2), already with its mode, and nothing there is ever chmod-ed; the one thing
    /// created there is the staging directory (0700 from mkdtemp(3)). A bind at the final path
    /// would show as a create, a chmod after it (or after the rename) as an attribute change.
    @Test func theSocketArrivesOnlyByRenameWithItsModeAlreadySet() async throws {
        let directory = try TemporaryDirectory()
        let events = try DirectoryEvents(watching: directory.path)
        try await Self.withGroup { group in
            for _ in 0..<5 {
                let server = try await Self.listen(directory.path + "/control.sock", on: group)
                await server.close()
            }
        }
        let seen = events.drain()
        let socketEvents = seen.filter { $0.name == "control.sock" }
        #expect(socketEvents.filter { $0.is(IN_MOVED_TO) }.count == 5)
        #expect(socketEvents.filter { $0.is(IN_DELETE) }.count == 5)
        #expect(!seen.contains { $0.is(IN_ATTRIB) }, "\(seen)")
        #expect(seen.filter { $0.is(IN_CREATE) }.allSatisfy { $0.isDirectory && $0.name.hasPrefix(".control.sock.") }, "\(seen)")
        #expect(seen.filter { $0.is(IN_CREATE) }.count == 5)
    }

    /// As another user (nobody), connecting is refused by the file's mode; the same attempt on
    /// a 0666 socket connects, so the check can tell the two apart.
    @Test(.enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func anotherUserCannotConnect() async throws {
        func attemptAsNobody(_ path: String) async throws -> String {
            let script = """
                import socket, errno
                s = socket.socket(socket.AF_UNIX)
                try:
                    s.connect(\(JSONWriter.quoted(path)))
                    print("connected")
                except OSError as e:
                    print(errno.errorcode.get(e.errno, e.errno))
                """
            let result = try await runProgram(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script])
            return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let directory = try TemporaryDirectory()
        chmod(directory.path, 0o755)
        try await Self.withGroup { group in
            let ownerOnly = try await Self.listen(directory.path + "/owner.sock", on: group)
            let everyone = try await Self.listen(directory.path + "/open.sock", mode: 0o666, on: group)
            #expect(try await attemptAsNobody(directory.path + "/owner.sock") == "EACCES")
            #expect(try await attemptAsNobody(directory.path + "/open.sock") == "connected")
            await ownerOnly.close()
            await everyone.close()
        }
    }

    @Test func aStaleSocketIsReplaced() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/control.sock"
        _ = try RawListener(path: path, listening: false)
        #expect(throws: ControlClientError.noDaemon(path: path)) { try ControlClient(socketPath: path).request(.status) }
        try await Self.withGroup { group in
            let server = try await Self.listen(path, on: group)
            let client = ControlClient(socketPath: path, timeout: .seconds(20))
            #expect(try await onOwnThread { try client.request(.status) }.isOK)
            await server.close()
        }
    }

    /// A second daemon on the same path is refused with one clear line, and the first keeps
    /// its socket and answers on.
    @Test func aLiveSocketIsRefused() async throws {
        try await withServer { fixture in
            try await Self.withGroup { group in
                await #expect(throws: LocalSocketError.alreadyListening(path: fixture.path)) {
                    try await Self.listen(fixture.path, on: group)
                }
            }
            #expect(TemporaryDirectory.entries(fixture.directory.path + "/run") == ["control.sock"])
            let client = fixture.client
            #expect(try await onOwnThread { try client.request(.machines) }.isOK)
        }
        #expect(LocalSocketError.alreadyListening(path: "/run/x.sock").description
            == "another daemon is already listening on /run/x.sock (is another ftms-bridge running?)")
    }

    @Test func aListenerThatNeverAcceptsCountsAsLive() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/control.sock"
        let squatter = try RawListener(path: path, listening: true)
        try await Self.withGroup { group in
            await #expect(throws: LocalSocketError.alreadyListening(path: path)) { try await Self.listen(path, on: group) }
        }
        withExtendedLifetime(squatter) {}
    }

    @Test func aFileThatIsNotASocketIsLeftAlone() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/control.sock"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("keep".utf8)))
        try await Self.withGroup { group in
            await #expect(throws: LocalSocketError.notASocket(path: path)) { try await Self.listen(path, on: group) }
        }
        #expect(FileManager.default.contents(atPath: path) == Data("keep".utf8))
        #expect(TemporaryDirectory.entries(directory.path) == ["control.sock"])
    }

    @Test func closeLeavesASocketThatIsNoLongerItsOwn() async throws {
        try await withServer { fixture in
            unlink(fixture.path)
            let successor = try RawListener(path: fixture.path, listening: true)
            await fixture.server.close()
            #expect((TemporaryDirectory.status(fixture.path)?.st_mode ?? 0) & S_IFMT == S_IFSOCK)
            withExtendedLifetime(successor) {}
        }
    }

    /// The path limit is the one binding holds to: the longest path accepted is bound and
    /// answers (its staging path is the longest NIO takes), one byte more is refused up front.
    @Test func theLongestAcceptedPathListens() async throws {
        let directory = try TemporaryDirectory()
        let name = String(repeating: "c", count: SocketPlacement.maximumPathLength - directory.path.utf8.count - 1)
        let path = directory.path + "/" + name
        #expect(path.utf8.count == 93)
        try await Self.withGroup { group in
            let server = try await Self.listen(path, on: group)
            let client = ControlClient(socketPath: path, timeout: .seconds(20))
            #expect(try await onOwnThread { try client.request(.machines) }.isOK)
            await server.close()
            await #expect(throws: LocalSocketError.pathTooLong(path: path + "c", limit: 93)) { try await Self.listen(path + "c", on: group) }
        }
    }

    @Test(arguments: [
        (ControlServerConfiguration(path: "/tmp/" + String(repeating: "d", count: 100) + "/c.sock"),
         LocalSocketError.pathTooLong(path: "/tmp/" + String(repeating: "d", count: 100) + "/c.sock", limit: 93)),
        (ControlServerConfiguration(path: "/tmp/x/"), .badConfiguration("the socket path /tmp/x/ names no file")),
        (ControlServerConfiguration(path: "/tmp/x.sock", mode: 0o4600), .badConfiguration("mode 4600 is not a permission mode (0 to 777 octal)")),
        (ControlServerConfiguration(path: "/tmp/x.sock", maxClients: 0), .badConfiguration("maxClients must be at least 1")),
        (ControlServerConfiguration(path: "/tmp/x.sock", idleTimeout: .zero), .badConfiguration("idleTimeout must be positive")),
    ])
    func badConfigurationsAreOneLineErrors(configuration: ControlServerConfiguration, expected: LocalSocketError) async throws {
        try await Self.withGroup { group in
            await #expect(throws: expected) { try await ControlServer.listen(configuration, handler: EchoHandler(), on: group) }
        }
        #expect(!expected.description.contains("\n"))
    }
}

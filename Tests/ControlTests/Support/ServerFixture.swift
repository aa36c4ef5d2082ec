import TestSupport
@testable import Control
import LocalSocket
import Glibc
import NIOCore
import NIOPosix
import Foundation
import Synchronization
import Testing

/// A control server on a socket in a fresh temporary directory, on a loop group of its own.
struct ServerFixture: Sendable {
    let directory: TemporaryDirectory
    let path: String
    let server: ControlServer

    /// A configuration's path before ``withServer`` puts the socket in its temporary directory.
    static let replacedPath = "control.sock"

    var client: ControlClient { ControlClient(socketPath: path, timeout: .seconds(20)) }

    /// A raw connection, for what ``ControlClient`` never sends.
    func connect() throws -> UnixStream {
        try UnixStream.connect(to: path, deadline: .now + .seconds(20))
    }
}

/// Runs `body` against a listening server and closes everything after, whatever happens.
func withServer<Value: Sendable>(
    _ configuration: ControlServerConfiguration = ControlServerConfiguration(path: ServerFixture.replacedPath),
    handler: any ControlHandler = EchoHandler(),
    name: String = "control.sock",
    _ body: (ServerFixture) async throws -> Value
) async throws -> Value {
    let directory = try TemporaryDirectory()
    var configuration = configuration
    configuration.path = directory.path + "/run/" + name
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
    do {
        let server = try await ControlServer.listen(configuration, handler: handler, on: group)
        let fixture = ServerFixture(directory: directory, path: configuration.path, server: server)
        do {
            let value = try await body(fixture)
            await server.close()
            try await group.shutdownGracefully()
            return value
        } catch {
            await server.close()
            throw error
        }
    } catch {
        try? await group.shutdownGracefully()
        throw error
    }
}

extension UnixStream {
    /// Sends `text` as it is (add the newline yourself).
    func send(_ text: String) throws {
        try send(Array(text.utf8), deadline: .now + .seconds(20))
    }

    mutating func line() throws -> String {
        String(decoding: try readLine(deadline: .now + .seconds(20)), as: UTF8.self)
    }

    mutating func expectLine(_ expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let line = try line()
        #expect(line == expected, sourceLocation: sourceLocation)
    }

    /// Expects the server to close the connection with nothing more to say.
    mutating func expectEnd(sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let line = String(decoding: try readLine(deadline: .now + .seconds(20)), as: UTF8.self)
            Issue.record("expected the end, got \(line)", sourceLocation: sourceLocation)
        } catch {
            #expect(error == .closed(partial: 0), sourceLocation: sourceLocation)
        }
    }
}

extension ServerFixture {
    /// Opens a raw connection that sends `text` and then only listens: its thread records
    /// the first line it hears (or the error that ended it) in `heard`, and ends with the
    /// connection (at the latest when the server closes).
    func squat(sending text: String, heard: Heard) {
        let path = path
        Thread.detachNewThread {
            do {
                var stream = try UnixStream.connect(to: path, deadline: .now + .seconds(20))
                try stream.send(Array(text.utf8), deadline: .now + .seconds(20))
                let line = try stream.readLine(deadline: .now + .seconds(120))
                heard.lines.withLock { $0.append(String(decoding: line, as: UTF8.self)) }
            } catch {
                heard.lines.withLock { $0.append("\(error)") }
            }
        }
    }
}

/// What squatting connections heard, shared with their threads.
final class Heard: Sendable {
    let lines = Mutex<[String]>([])
}

import Foundation
import TestSupport
import Testing
import Upload

#if canImport(Glibc)
import Glibc
#endif

/// Every call has a timeout for the whole exchange: a backend that never answers, or sends
/// its headers and then stalls, costs the timeout and no more.
@Suite("Request timeouts")
struct TransportTimeoutTests {
    /// A TCP listener on a free loopback port that accepts, optionally writes `greeting`, and
    /// then says nothing more.
    final class SilentServer: @unchecked Sendable {
        let port: UInt16
        private let listener: Int32
        private let connections = Connections()

        init(greeting: String?) throws {
            let (listener, port) = try TransportTimeoutTests.boundLoopbackSocket()
            guard listen(listener, 8) == 0 else { throw TestFailure("cannot listen on loopback") }
            self.listener = listener
            self.port = port
            let connections = connections
            Thread {
                while true {
                    let client = accept(listener, nil, nil)
                    guard client >= 0 else { return }
                    connections.add(client)
                    if let greeting { _ = greeting.withCString { write(client, $0, strlen($0)) } }
                }
            }.start()
        }

        /// Accepted connections, held open (silent) until the server goes.
        final class Connections: @unchecked Sendable {
            private let lock = NSLock()
            private var descriptors: [Int32] = []
            func add(_ descriptor: Int32) { lock.withLock { descriptors.append(descriptor) } }
            func closeAll() { lock.withLock { descriptors.forEach { close($0) } } }
        }

        deinit {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
            connections.closeAll()
        }
    }

    /// A TCP socket bound to a free loopback port, and the port.
    static func boundLoopbackSocket() throws -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let (bound, port) = LoopbackAddress.with { bind(descriptor, $0, $1.pointee) == 0 && getsockname(descriptor, $0, $1) == 0 }
        guard descriptor >= 0, bound else { throw TestFailure("cannot bind a loopback port") }
        return (descriptor, port)
    }

    func expectTimeout(greeting: String?) async throws {
        let server = try SilentServer(greeting: greeting)
        let client = try BackendClient(baseURL: "http://127.0.0.1:\(server.port)", timeout: .milliseconds(400))
        let started = ContinuousClock.now
        await #expect(throws: BackendError.timeout(seconds: 0.4)) {
            _ = try await client.stats(accessToken: "token")
        }
        // The client waited out its own limit. Without the whole-exchange timeout a stalled
        // body would never end, and the group's timeout would name this test.
        let took = ContinuousClock.now - started
        #expect(took >= .milliseconds(400), "took \(took)")
    }

    @Test func aBackendThatNeverAnswers() async throws {
        try await expectTimeout(greeting: nil)
    }

    @Test func aBackendThatStallsAfterItsHeaders() async throws {
        try await expectTimeout(greeting: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"workout")
    }

    /// A port held bound but not listening, so no other test's server can take it meanwhile:
    /// refused, and said so at once, not when the call's timeout runs out. The timeout is an
    /// hour, so a client that keeps retrying the connect until then is caught by the test's
    /// one generous wait (the scheduler's backoff, not the HTTP client, decides when to retry).
    @Test func aBackendThatIsNotThere() async throws {
        let (holder, port) = try Self.boundLoopbackSocket()
        defer { close(holder) }
        let client = try BackendClient(baseURL: "http://127.0.0.1:\(port)", timeout: .seconds(3600))
        let outcome = try await withThrowingTaskGroup(of: Result<Void, BackendError>?.self) { group in
            group.addTask {
                do {
                    _ = try await client.stats(accessToken: "token")
                    return .success(())
                } catch let error as BackendError {
                    return .failure(error)
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        switch outcome {
        case nil:
            Issue.record("no answer from a closed port in a minute: the connect is retried until the timeout")
        case .success?:
            Issue.record("a closed port answered")
        case .failure(let error)?:
            guard case .unreachable(let reason) = error else {
                Issue.record("expected unreachable, got \(error)")
                return
            }
            #expect(reason.localizedCaseInsensitiveContains("refused"), "\(reason)")
            #expect(error.isTransient)
        }
    }

    @Test func aBackendURLMustBeHTTP() {
        #expect(throws: BackendError.self) { try BackendClient(baseURL: "ftp://example.com") }
        #expect(throws: BackendError.self) { try BackendClient(baseURL: "127.0.0.1:8080") }
    }
}

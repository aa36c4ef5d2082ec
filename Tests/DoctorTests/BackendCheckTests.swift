import Foundation
import Testing
@testable import Doctor

/// The backend check against real sockets: a server that answers, a port nobody listens on,
/// and an address that swallows packets.
@Suite("Backend check")
struct BackendCheckTests {
    @Test func anyHTTPAnswerMeansReachable() async throws {
        let (server, url) = try TestListener.http(status: 401, body: #"{"error":"invalid_token","message":"no bearer token"}"#)
        defer { server.stop() }
        let result = await BackendCheck(url: url, source: "--backend", timeout: .seconds(2)).run()
        #expect(result.status == .ok, "\(result.detail)")
        #expect(result.detail.hasPrefix("\(url) answers GET /users/me with HTTP 401 invalid_token in "))
        #expect(result.data["http_status"] == 401)
        #expect(result.data["error_code"] == "invalid_token")
    }

    @Test func aServerErrorIsAWarning() async throws {
        let (server, url) = try TestListener.http(status: 503, body: "")
        defer { server.stop() }
        let result = await BackendCheck(url: url, source: "--backend", timeout: .seconds(2)).run()
        #expect(result.status == .warning)
        #expect(result.detail.hasSuffix(": the backend has trouble"))
    }

    @Test func nothingListeningFailsWithinTheTimeout() async throws {
        let url = "http://127.0.0.1:\(try TestListener.closedPort())"
        // The HTTP client may keep retrying a refused connect until the limit; either way the
        // check fails and says why.
        let result = await BackendCheck(url: url, source: "config backend.url", timeout: .seconds(3)).run()
        #expect(result.status == .failed)
        let reasons = ["\(url) (config backend.url): backend unreachable: ", "\(url) (config backend.url): no answer within 3 s"]
        #expect(reasons.contains { result.detail.hasPrefix($0) }, "\(result.detail)")
        #expect(result.data["reachable"] == false)
    }

    @Test func aBlackholeIsBoundedByTheTimeout() async {
        // TEST-NET-1 (RFC 5737): nothing answers; the connect either hangs or fails at once.
        // Bounded by the check's limit, not by the network: a check that waited for the
        // network would take the kernel's two minutes of SYN retries, and say so.
        let result = await BackendCheck(url: "http://192.0.2.1:8080", source: "--backend", timeout: .milliseconds(800)).run()
        #expect(result.status == .failed)
    }

    @Test func noBackendAndABadURL() async {
        let none = await BackendCheck(url: "", source: "config backend.url", timeout: .seconds(1)).run()
        #expect(none.status == .warning)
        #expect(none.detail == "no backend configured: sessions queue on the gateway")
        let bad = await BackendCheck(url: "ftp://example.com", source: "--backend", timeout: .seconds(1)).run()
        #expect(bad.status == .failed)
        #expect(bad.detail == "backend URL must be http://HOST[:PORT] or https://…, got ftp://example.com")
    }
}

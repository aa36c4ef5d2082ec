import TestSupport
import AsyncHTTPClient
import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// `ftms-backend` as a real process on a random loopback port, with its admin API.
final class ReferenceBackend: @unchecked Sendable {
    let process: ChildProcess
    let url: String

    init(_ arguments: [String] = []) async throws {
        process = try ChildProcess(ChildProcess.builtProduct("ftms-backend"), ["--port", "0", "--quiet"] + arguments, name: "backend")
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            if let line = process.stdout.split(separator: "\n").first(where: { $0.hasPrefix("listening ") }) {
                url = String(line.dropFirst("listening ".count))
                break
            }
            if await process.wait(within: .zero) != nil { throw TestFailure("ftms-backend exited: \(process.stderr)") }
            guard ContinuousClock.now < deadline else { throw TestFailure("ftms-backend was not listening in time: \(process.stderr)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// An admin call; the answer as a JSON object.
    @discardableResult
    func admin(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: url + path)
        request.method = .init(rawValue: method)
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: Array(try JSONSerialization.data(withJSONObject: body))))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        var buffer = try await response.body.collect(upTo: 64 << 20)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        guard (200..<300).contains(response.status.code) else {
            throw TestFailure("\(method) \(path): HTTP \(response.status.code) \(String(decoding: bytes, as: UTF8.self))")
        }
        return (try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]) ?? [:]
    }

    /// Adds fault rules (`docs/backend-api.md`, *Faults*), replacing the others.
    func faults(_ rules: [String]) async throws {
        try await admin("POST", "/_admin/faults", ["rules": rules, "replace": true])
    }

    /// Every stored session, with how many times it arrived (1 plus one per duplicate).
    func storedSessions() async throws -> [(id: String, received: Int)] {
        let answer = try await admin("GET", "/_admin/sessions")
        return (answer["sessions"] as? [[String: Any]] ?? []).compactMap { entry in
            guard let id = entry["session_id"] as? String else { return nil }
            return (id.lowercased(), entry["received"] as? Int ?? 0)
        }
    }

    func counters() async throws -> [String: Any] {
        try await admin("GET", "/_admin/counters")
    }

    /// Completed refreshes for `device`.
    func refreshes(device: String) async throws -> Int {
        ((try await counters())["refreshes"] as? [String: Any])?[device] as? Int ?? 0
    }

    deinit {
        process.signal(SIGTERM)
    }
}

import TestSupport
import JSON
import FoundationEssentials
import Hummingbird
import HummingbirdTesting
@testable import ReferenceBackend

/// A JSON answer: status, headers and body.
struct APIResponse: Sendable {
    let status: Int
    let headers: HTTPFields
    let json: JSONValue

    subscript(key: String) -> JSONValue? { json[key] }

    /// `error` of an error body.
    var error: String? { json["error"]?.string }
}

/// The backend's API as tests call it: through HummingbirdTesting's router or live client, or
/// over a plain `TestClient` connection to any backend (the `ftms-backend` process included).
struct API: Sendable {
    typealias Transport = @Sendable (String, HTTPRequest.Method, HTTPFields, ByteBuffer?) async throws -> (HTTPResponse, ByteBuffer)

    let transport: Transport
    /// The live server's port, when there is one.
    let port: Int?

    init(client: any TestClientProtocol) {
        transport = { uri, method, headers, body in
            try await client.execute(uri: uri, method: method, headers: headers, body: body) { ($0.head, $0.body) }
        }
        port = client.port
    }

    init(connection: TestClient, port: Int) {
        transport = { uri, method, headers, body in
            var headers = headers
            headers[.connection] = "keep-alive"
            let response = try await connection.execute(TestClient.Request(uri, method: method, authority: "localhost", headers: headers, body: body))
            return (response.head, response.body ?? ByteBuffer())
        }
        self.port = port
    }

    /// Runs `body` with a fresh connection to the backend on `port`.
    static func connect<Value: Sendable>(port: Int, _ body: @escaping @Sendable (API) async throws -> Value) async throws -> Value {
        try await TestClient.withClient(host: "127.0.0.1", port: port) { connection in
            try await body(API(connection: connection, port: port))
        }
    }

    func call(_ method: HTTPRequest.Method, _ path: String, bearer: String? = nil, body: JSONValue? = nil, raw: String? = nil) async throws
        -> APIResponse
    {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        let bytes: ByteBuffer? =
            if let raw { ByteBuffer(string: raw) } else { try body.map { ByteBuffer(bytes: try JSONEncoder().encode($0)) } }
        let (head, answer) = try await transport(path, method, headers, bytes)
        let json = answer.readableBytes == 0 ? JSONValue.null : try JSONDecoder().decode(JSONValue.self, from: Data(answer.readableBytesView))
        return APIResponse(status: Int(head.status.code), headers: head.headerFields, json: json)
    }

    struct Login: Sendable {
        let access: String
        let refresh: String
        let response: APIResponse
    }

    /// Logs `subject` in from `device`, expecting success.
    func login(_ subject: String, device: String = "device-1", provider: String = "apple") async throws -> Login {
        let response = try await call(.post, "/auth/sso/\(provider)", body: ["id_token": .string("test:\(subject)"), "device_id": .string(device)])
        guard response.status == 200, let access = response["access_token"]?.string, let refresh = response["refresh_token"]?.string else {
            throw TestFailure("login of \(subject) failed: \(response.status) \(response.json)")
        }
        return Login(access: access, refresh: refresh, response: response)
    }

    func refresh(_ token: String, device: String = "device-1") async throws -> APIResponse {
        try await call(.post, "/auth/refresh", bearer: token, body: ["device_id": .string(device)])
    }

    func upload(_ sessions: [JSONValue], token: String) async throws -> APIResponse {
        try await call(.post, "/sessions/batch_upload", bearer: token, body: ["sessions": .array(sessions)])
    }

    func faults(_ rules: [String], replace: Bool = false) async throws -> APIResponse {
        try await call(.post, "/_admin/faults", body: ["rules": .array(rules.map(JSONValue.string)), "replace": .bool(replace)])
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body` against a fresh backend: by default through the router (no sockets), with a
/// manual clock and no request log.
func withBackend(
    setup: TestingSetup = .router, clock: ManualClock = ManualClock(), log: @escaping @Sendable (String) -> Void = { _ in },
    _ configure: (inout BackendConfiguration) -> Void = { _ in },
    _ body: @escaping @Sendable (API, ManualClock) async throws -> Void
) async throws {
    var configuration = BackendConfiguration()
    configuration.port = 0
    configuration.logRequests = false
    configure(&configuration)
    let server = try BackendServer(configuration: configuration, clock: clock.wall, log: log)
    try await server.application().test(setup) { client in
        try await body(API(client: client), clock)
    }
}

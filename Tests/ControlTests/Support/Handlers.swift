import Control

/// Answers every request with the request itself as the result, so a test can check that what
/// the client sent is what the handler got.
struct EchoHandler: ControlHandler {
    func handle(_ request: ControlRequest) async -> ControlResponse {
        (try? ControlResponse.success(resultJSON: request.jsonLine())) ?? .failure(.internalError, "echo failed")
    }
}

/// A handler written inline by a test.
struct ClosureHandler: ControlHandler {
    let body: @Sendable (ControlRequest) async -> ControlResponse

    init(_ body: @escaping @Sendable (ControlRequest) async -> ControlResponse) {
        self.body = body
    }

    func handle(_ request: ControlRequest) async -> ControlResponse {
        await body(request)
    }
}

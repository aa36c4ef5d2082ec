public import Hummingbird

/// `{"error": code, "message": …}` with the status, and `Retry-After` when set.
extension BackendRefusal: HTTPResponseError {
    public var status: HTTPResponse.Status {
        HTTPResponse.Status(code: statusCode)
    }

    public var headers: HTTPFields {
        var fields: HTTPFields = [.contentType: "application/json"]
        if let retryAfter { fields[.retryAfter] = String(retryAfter) }
        return fields
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = (try? JSONCoding.buffer(ErrorResponse(error: code, message: message))) ?? ByteBuffer()
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    /// Hummingbird's own refusals (unknown route, body too large) in this backend's shape.
    init(_ error: any HTTPResponseError) {
        let status = error.status.code
        let code =
            switch status {
            case 404: "not_found"
            case 413: "payload_too_large"
            case 400..<500: "invalid_request"
            default: "server_error"
            }
        self.init(status: status, code: code, message: error.status.reasonPhrase)
    }
}

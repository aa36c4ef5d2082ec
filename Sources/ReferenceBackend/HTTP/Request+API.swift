import JSON
import Hummingbird

extension Request {
    /// The token of `Authorization: Bearer <token>` (scheme in any case), if any.
    var bearerToken: String? {
        guard let header = headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
        return token.isEmpty ? nil : String(token)
    }

    /// The body as JSON; an empty body is `{}` so that body-less calls get field errors, not
    /// parse errors.
    func json(limit: Int) async throws(BackendRefusal) -> JSONValue {
        let buffer: ByteBuffer
        do {
            buffer = try await body.collect(upTo: limit)
        } catch {
            throw BackendRefusal(status: 413, code: "payload_too_large", message: "the body is larger than \(limit) bytes")
        }
        guard buffer.readableBytes > 0 else { return .object(JSONObject()) }
        do {
            return try JSONReader.read(Array(buffer.readableBytesView))
        } catch {
            throw .invalidRequest("the body is not JSON: \(error)")
        }
    }
}

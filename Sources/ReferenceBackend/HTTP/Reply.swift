import Hummingbird

/// A successful JSON answer.
struct Reply: Sendable {
    let status: HTTPResponse.Status
    let body: ByteBuffer

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws(BackendRefusal) -> Reply {
        do {
            return Reply(status: status, body: try JSONCoding.buffer(value))
        } catch {
            throw .serverError("cannot encode the answer: \(error)")
        }
    }

    var response: Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
    }
}

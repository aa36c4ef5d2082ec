import JSON
/// One line a client sent, read as far as it goes: its `id` when it has a usable one (so even a
/// bad request's answer carries it), and the request or why there is none.
struct RequestLine {
    var id: ControlRequestID?
    var request: Result<ControlRequest, ControlRequestError>

    init(_ bytes: [UInt8]) {
        id = nil
        let value: JSONValue
        do {
            value = try JSONReader.read(bytes)
        } catch {
            request = .failure(.notJSON(error.description))
            return
        }
        guard let object = value.object else {
            request = .failure(.notAnObject)
            return
        }
        if let idValue = object["id"] {
            guard let id = ControlRequestID(idValue) else {
                request = .failure(.badID(found: idValue.kind))
                return
            }
            self.id = id
        }
        do {
            request = .success(try ControlRequest(object))
        } catch {
            request = .failure(error)
        }
    }
}

import JSON
extension ControlResponse {
    /// The answer line, newline included: `{"ok":true,"id":…,"result":{…}}` or
    /// `{"ok":false,"id":…,"error":"…","code":"…"}`, with `id` only when the request had one.
    func line(id: ControlRequestID?) -> String {
        var text = #"{"ok":\#(isOK)"#
        if let id { text += #","id":\#(JSONWriter.text(id.json))"# }
        switch outcome {
        case .success(let result):
            text += #","result":\#(result)"#
        case .failure(let failure):
            text += #","error":\#(JSONWriter.quoted(failure.message)),"code":\#(JSONWriter.quoted(failure.code.rawValue))"#
        }
        return text + "}\n"
    }

    /// Reads an answer line (without its newline) the way a client must: `ok` decides, unknown
    /// fields are ignored (a newer daemon may add some), anything else is a reason to distrust it.
    static func parse(answer bytes: [UInt8]) throws(AnswerError) -> (id: ControlRequestID?, response: ControlResponse) {
        let value: JSONValue
        do {
            value = try JSONReader.read(bytes)
        } catch {
            throw AnswerError("not JSON: \(error)")
        }
        guard let object = value.object else { throw AnswerError("not a JSON object") }
        let id = object["id"].flatMap(ControlRequestID.init)
        switch object["ok"] {
        case .bool(true)?:
            guard case .object(let result)? = object["result"] else { throw AnswerError("\"ok\" is true but \"result\" is not an object") }
            return (id, .success(result))
        case .bool(false)?:
            guard case .string(let message)? = object["error"], case .string(let code)? = object["code"] else {
                throw AnswerError("\"ok\" is false but \"error\" and \"code\" are not both strings")
            }
            return (id, .failure(ControlErrorCode(rawValue: code), message))
        default:
            throw AnswerError("no boolean \"ok\"")
        }
    }

    /// Why an answer line cannot be trusted.
    struct AnswerError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

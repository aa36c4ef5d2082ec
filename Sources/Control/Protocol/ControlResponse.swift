import JSON
/// The answer to one request: a result, which is any JSON object the handler chose, or a
/// failure with a code and a one-line message.
///
/// The result travels as JSON text, checked and put on one line when the response is made,
/// so the daemon can answer with whatever it builds (its own `Encodable` types through
/// `JSONEncoder`, or text it already has) and this module need not know their types.
package struct ControlResponse: Sendable, Equatable {
    package enum Outcome: Sendable, Equatable {
        /// A JSON object on one line.
        case success(resultJSON: String)
        case failure(ControlFailure)
    }

    package let outcome: Outcome

    private init(_ outcome: Outcome) {
        self.outcome = outcome
    }

    /// Success with an empty result, `{}`.
    package static let ok = ControlResponse(.success(resultJSON: "{}"))

    /// Success with `resultJSON`, which must be one JSON object (any layout: it is re-written
    /// on one line, keys in their order).
    package static func success(resultJSON: String) throws(ControlResultError) -> ControlResponse {
        let value: JSONValue
        do {
            value = try JSONReader.read(Array(resultJSON.utf8))
        } catch {
            throw ControlResultError(reason: error.description)
        }
        guard case .object = value else { throw ControlResultError(reason: "it is \(value.kind)") }
        return ControlResponse(.success(resultJSON: JSONWriter.text(value)))
    }

    package static func failure(_ code: ControlErrorCode, _ message: String) -> ControlResponse {
        ControlResponse(.failure(ControlFailure(code: code, message: message)))
    }

    static func failure(_ failure: ControlFailure) -> ControlResponse {
        ControlResponse(.failure(failure))
    }

    static func success(_ object: JSONObject) -> ControlResponse {
        ControlResponse(.success(resultJSON: JSONWriter.text(.object(object))))
    }

    package var isOK: Bool {
        if case .success = outcome { true } else { false }
    }

    /// The result object's JSON text, or nil for a failure.
    package var resultJSON: String? {
        if case .success(let json) = outcome { json } else { nil }
    }

    package var failure: ControlFailure? {
        if case .failure(let failure) = outcome { failure } else { nil }
    }
}

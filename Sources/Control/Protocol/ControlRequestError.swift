import JSON
/// Why a request line is not a request, as the one-line `error` of its `bad_request` answer.
/// Each names the field and what it should have been, so a person typing requests into
/// `socat` can fix theirs from the answer alone.
package enum ControlRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    case notJSON(String)
    case notAnObject
    case missingCommand
    case unknownCommand(String)
    case missingField(command: String, field: String, expected: String)
    case wrongType(field: String, expected: String, found: String)
    case outOfRange(field: String, value: String, range: String)
    case unknownField(command: String, field: String, allowed: [String])
    case badID(found: String)

    package var description: String {
        switch self {
        case .notJSON(let reason):
            "not JSON: \(reason)"
        case .notAnObject:
            #"a request is a JSON object such as {"command":"status"}"#
        case .missingCommand:
            #"no "command" (one of \#(ControlRequest.commandNames.joined(separator: ", ")))"#
        case .unknownCommand(let command):
            #"unknown command \#(JSONWriter.quoted(String(command.prefix(64)))) (known: \#(ControlRequest.commandNames.joined(separator: ", ")))"#
        case .missingField(let command, let field, let expected):
            #"\#(command) needs "\#(field)" (\#(expected))"#
        case .wrongType(let field, let expected, let found):
            #""\#(field)" must be \#(expected), not \#(found)"#
        case .outOfRange(let field, let value, let range):
            #""\#(field)" \#(value) is outside \#(range)"#
        case .unknownField(let command, let field, let allowed):
            #"unknown field \#(JSONWriter.quoted(String(field.prefix(64)))) for \#(command) (it takes \#(allowed.isEmpty ? "none" : allowed.joined(separator: ", ")))"#
        case .badID(let found):
            #""id" must be a string or an integer, not \#(found)"#
        }
    }
}

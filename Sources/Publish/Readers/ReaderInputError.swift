/// Why a reader's input closed it. The description is the `message` of the `error` line the
/// reader gets first, so it names the rule that was broken.
enum ReaderInputError: Error, Sendable, Equatable, CustomStringConvertible {
    case lineTooLong(limit: Int)
    case notJSON(String)
    case unknownRequest(String)

    var description: String {
        switch self {
        case .lineTooLong(let limit): "line longer than \(limit) bytes"
        case .notJSON(let reason): "not JSON: \(reason)"
        case .unknownRequest(let what): "unknown request: \(what); the only request is {\"watch\": {\"machines\": [...], \"types\": [...]}}"
        }
    }
}

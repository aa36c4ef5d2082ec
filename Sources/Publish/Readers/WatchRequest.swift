/// Reads a reader's one kind of request, `{"watch": {"machines": [...], "types": [...]}}`.
///
/// Strict: an unknown key, a duplicate key or a wrong type is refused rather than ignored. The
/// socket is read-only and this is its only request, so anything else is a reader speaking
/// another protocol (or a typo that would otherwise silently mean "everything"), and the
/// reader is better told at once. Type names are not checked against ``MessageType``: asking
/// for a type this daemon does not publish yet is how a newer reader talks to an older daemon.
import JSON

enum WatchRequest {
    static func parse(_ line: [UInt8]) throws(ReaderInputError) -> WatchFilter {
        let value: JSONValue
        do {
            value = try JSONReader.read(line)
        } catch where error.kind == .duplicateKey {
            throw .unknownRequest(error.reason)
        } catch {
            throw .notJSON(error.description)
        }
        guard let top = value.object else { throw .unknownRequest("not an object") }
        guard top.keys == ["watch"], let watch = top["watch"] else {
            throw .unknownRequest("expected the single key \"watch\"")
        }
        if case .null = watch { return .all }
        guard let fields = watch.object else { throw .unknownRequest("\"watch\" is not an object") }
        var machines: Set<String>?
        var types: Set<MessageType>?
        for field in fields.members {
            switch field.key {
            case "machines": machines = try strings(field)
            case "types": types = try strings(field).map { Set($0.map(MessageType.init(rawValue:))) }
            default: throw .unknownRequest("unknown key \"\(field.key)\" in \"watch\"")
            }
        }
        return WatchFilter(machines: machines, types: types)
    }

    private static func strings(_ field: (key: String, value: JSONValue)) throws(ReaderInputError) -> Set<String>? {
        switch field.value {
        case .null:
            return nil
        case .array(let elements):
            var result: Set<String> = []
            for element in elements {
                guard case .string(let text) = element else { throw .unknownRequest("\"\(field.key)\" holds a non-string") }
                result.insert(text)
            }
            return result
        default:
            throw .unknownRequest("\"\(field.key)\" is not a list")
        }
    }
}

import JSON
extension ControlRequest {
    /// Reads one request line (without its newline). Strict: an unknown command or field, a
    /// missing field, a wrong type, a number out of range or not finite is an error, so a
    /// typo is reported instead of quietly meaning something else.
    package init(parsing line: String) throws(ControlRequestError) {
        self = try RequestLine(Array(line.utf8)).request.get()
    }

    /// The request in `object`, whose `"id"` the caller has taken care of.
    init(_ object: JSONObject) throws(ControlRequestError) {
        guard let commandValue = object["command"] else { throw .missingCommand }
        guard case .string(let command) = commandValue else {
            throw .wrongType(field: "command", expected: "a string", found: commandValue.kind)
        }
        let fields = RequestFields(object: object, command: command)
        switch command {
        case "status":
            try fields.only([])
            self = .status
        case "machines":
            try fields.only([])
            self = .machines
        case "upload":
            try fields.only([])
            self = .upload
        case "set_resistance":
            try fields.only(["machine", "level"])
            self = .setResistance(machine: try fields.name("machine"), level: try fields.number("level", in: Self.levelRange))
        case "set_power":
            try fields.only(["machine", "watts"])
            self = .setPower(machine: try fields.name("machine"), watts: try fields.integer("watts", in: Self.wattsRange))
        case "start", "stop", "pause", "reset", "stop_training":
            try fields.only(["machine"])
            let machine = try fields.name("machine")
            self = switch command {
            case "start": .start(machine: machine)
            case "stop": .stop(machine: machine)
            case "pause": .pause(machine: machine)
            case "reset": .reset(machine: machine)
            default: .stopTraining(machine: machine)
            }
        case "handover":
            try fields.only(["machines"])
            self = .handover(machines: try fields.names("machines"))
        case "start_training":
            try fields.only(["machine", "training"])
            self = .startTraining(machine: try fields.name("machine"), training: try fields.name("training"))
        default:
            throw .unknownCommand(command)
        }
    }
}

/// A request object's fields, read one by one with the command's name at hand for messages.
private struct RequestFields {
    /// Present on every request; not the command's own fields.
    static let envelopeKeys: Set<String> = ["command", "id"]

    let object: JSONObject
    let command: String

    func only(_ allowed: [String]) throws(ControlRequestError) {
        for key in object.keys where !Self.envelopeKeys.contains(key) && !allowed.contains(key) {
            throw .unknownField(command: command, field: key, allowed: allowed)
        }
    }

    private func value(_ field: String, expected: String) throws(ControlRequestError) -> JSONValue {
        guard let value = object[field] else { throw .missingField(command: command, field: field, expected: expected) }
        return value
    }

    /// A machine name or training id: a non-empty string of at most ``ControlRequest/maximumNameLength`` bytes.
    func name(_ field: String) throws(ControlRequestError) -> String {
        let expected = "a non-empty string"
        switch try value(field, expected: expected) {
        case .string(let text) where text.isEmpty:
            throw .wrongType(field: field, expected: expected, found: "an empty string")
        case .string(let text) where text.utf8.count > ControlRequest.maximumNameLength:
            throw .wrongType(field: field, expected: "at most \(ControlRequest.maximumNameLength) bytes", found: "\(text.utf8.count) bytes")
        case .string(let text):
            return text
        case let other:
            throw .wrongType(field: field, expected: expected, found: other.kind)
        }
    }

    /// An optional array of names (absent: none), each as ``name(_:)`` takes it.
    func names(_ field: String) throws(ControlRequestError) -> [String] {
        guard let value = object[field] else { return [] }
        guard case .array(let values) = value else { throw .wrongType(field: field, expected: "an array of strings", found: value.kind) }
        var names: [String] = []
        for element in values {
            guard case .string(let text) = element, !text.isEmpty, text.utf8.count <= ControlRequest.maximumNameLength else {
                throw .wrongType(field: field, expected: "an array of non-empty strings", found: element.kind)
            }
            names.append(text)
        }
        return names
    }

    func number(_ field: String, in range: ClosedRange<Double>) throws(ControlRequestError) -> Double {
        let number: Double
        switch try value(field, expected: "a number") {
        case .integer(let integer): number = Double(integer)
        case .number(let double): number = double
        case let other: throw .wrongType(field: field, expected: "a number", found: other.kind)
        }
        guard range.contains(number) else {
            throw .outOfRange(field: field, value: "\(number)", range: "\(range.lowerBound)…\(range.upperBound)")
        }
        return number
    }

    /// A whole number; `150.0` counts, `150.5` does not.
    func integer(_ field: String, in range: ClosedRange<Int>) throws(ControlRequestError) -> Int {
        let expected = "a whole number"
        let integer: Int
        switch try value(field, expected: expected) {
        case .integer(let value) where Int64(range.lowerBound) <= value && value <= Int64(range.upperBound):
            integer = Int(value)
        case .number(let value) where value.rounded() == value && Double(range.lowerBound) <= value && value <= Double(range.upperBound):
            integer = Int(value)
        case .integer(let value):
            throw .outOfRange(field: field, value: "\(value)", range: "\(range.lowerBound)…\(range.upperBound)")
        case .number(let value) where value.rounded() == value:
            throw .outOfRange(field: field, value: "\(value)", range: "\(range.lowerBound)…\(range.upperBound)")
        case .number:
            throw .wrongType(field: field, expected: expected, found: "a fraction")
        case let other:
            throw .wrongType(field: field, expected: expected, found: other.kind)
        }
        return integer
    }
}

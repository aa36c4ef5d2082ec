import JSON

/// The text form of a rule, `KIND[:key=value,...]`, shared by `--fault` and the admin API.
///
/// JSON rules are turned into the same key/value pairs first, so both doors accept exactly the
/// same keys with the same checks.
extension FaultRule {
    public init(spec: String) throws(FaultRule.Problem) {
        let (kindText, rest) = spec.firstIndex(of: ":").map { (String(spec[..<$0]), String(spec[spec.index(after: $0)...])) } ?? (spec, "")
        guard let kind = Kind(rawValue: kindText) else {
            throw Problem("unknown fault kind \"\(kindText)\" (one of \(Kind.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        var pairs: [(String, String)] = []
        for item in rest.split(separator: ",", omittingEmptySubsequences: true) {
            guard let equals = item.firstIndex(of: "=") else { throw Problem("\"\(item)\" is not key=value") }
            pairs.append((String(item[..<equals]), String(item[item.index(after: equals)...])))
        }
        try self.init(kind: kind, pairs: pairs)
    }

    init(kind: Kind, pairs: [(String, String)]) throws(FaultRule.Problem) {
        self.init(kind: kind)
        for (key, value) in pairs {
            try set(key, value)
        }
        self = try validated()
    }

    private mutating func set(_ key: String, _ value: String) throws(FaultRule.Problem) {
        func integer() throws(FaultRule.Problem) -> Int {
            guard let number = Int(value) else { throw Problem("\(key)=\(value) is not a whole number") }
            return number
        }
        switch key.replacing("_", with: "-") {
        case "every": every = try integer()
        case "next": next = try integer()
        case "after": after = try integer()
        case "status": status = try integer()
        case "retry-after": retryAfter = try integer()
        case "ms": milliseconds = try integer()
        case "seconds":
            guard let number = Double(value) else { throw Problem("seconds=\(value) is not a number") }
            seconds = number
        case "mode":
            guard let parsed = TimeoutMode(rawValue: value) else { throw Problem("mode must be drop or sleep") }
            mode = parsed
        case "error": error = value
        case "route", "routes":
            var names = Set<RouteName>()
            for name in value.split(separator: "+") {
                guard let route = RouteName(rawValue: String(name)) else {
                    throw Problem("unknown route \"\(name)\" (one of \(RouteName.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                names.insert(route)
            }
            routes = names
        default: throw Problem("unknown fault key \"\(key)\"")
        }
    }

    /// The rule in its text form, keys that differ from the defaults only.
    public var spec: String {
        var pairs: [String] = []
        if let routes { pairs.append("route=" + routes.sorted().map(\.rawValue).joined(separator: "+")) }
        if after != 0 { pairs.append("after=\(after)") }
        if let every { pairs.append("every=\(every)") }
        if let next { pairs.append("next=\(next)") }
        switch kind {
        case .serverError:
            pairs.append("status=\(status)")
            if let retryAfter { pairs.append("retry-after=\(retryAfter)") }
        case .rateLimit: pairs.append("retry-after=\(retryAfter ?? 1)")
        case .timeout:
            pairs.append("mode=\(mode.rawValue)")
            if mode == .sleep { pairs.append("seconds=\(seconds)") }
        case .invalid: pairs.append("error=\(error)")
        case .latency: pairs.append("ms=\(milliseconds)")
        }
        return kind.rawValue + (pairs.isEmpty ? "" : ":" + pairs.joined(separator: ","))
    }
}

extension FaultRule: Codable {
    /// A JSON rule is either the text form (`"5xx:next=1"`) or an object with `kind` and the
    /// same keys (`{"kind": "5xx", "next": 1, "routes": ["batch_upload"]}`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let value = try container.decode(JSONValue.self)
        do throws(Problem) {
            try self.init(json: value)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    init(json value: JSONValue) throws(FaultRule.Problem) {
        if let text = value.string {
            try self.init(spec: text)
            return
        }
        guard var fields = value.object, let kindText = fields["kind"]?.string else {
            throw Problem("a fault rule is a string or an object with a kind")
        }
        fields["kind"] = nil
        guard let kind = Kind(rawValue: kindText) else { throw Problem("unknown fault kind \"\(kindText)\"") }
        var pairs: [(String, String)] = []
        for (key, field) in fields.members.sorted(by: { $0.key < $1.key }) {
            pairs.append((key, try Self.text(of: field, key: key)))
        }
        try self.init(kind: kind, pairs: pairs)
    }

    private static func text(of field: JSONValue, key: String) throws(FaultRule.Problem) -> String {
        switch field {
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .number(let number): return field.integer.map { String($0) } ?? String(number)
        case .array(let items):
            let names = items.compactMap(\.string)
            guard names.count == items.count else { throw Problem("\(key) must list route names") }
            return names.joined(separator: "+")
        default: throw Problem("\(key) must be a string or a number")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(spec)
    }
}

import TOMLKit

/// The TOMLKit step of parsing: text in, a ``ConfigValue`` table out, or a syntax error.
///
/// TOMLKit (toml++) is chosen because it is the TOML 1.0 parser the package mirror has; this
/// file is the only one that sees it. toml++ refuses duplicate keys and redefined tables, and
/// reports the line and column of each error. TOMLKit never frees a parsed tree, so each
/// parse leaks it: harmless for a file read at start and on SIGHUP.
enum TOMLDocument {
    /// toml++ refuses deeper nesting itself; this bound keeps the conversion's recursion
    /// shallow whatever a future toml++ allows.
    static let maximumDepth = 64

    static func parse(_ text: String, source: String) throws(ConfigError) -> [(key: String, value: ConfigValue)] {
        do {
            try TOMLPrecheck.check(text)
        } catch {
            throw ConfigError(.syntax, source: source, line: error.line, problem: "TOML syntax error: \(error.message)")
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            let line = error.source.begin.line > 0 ? error.source.begin.line : nil
            throw ConfigError(.syntax, source: source, line: line, problem: "TOML syntax error: \(error.description)")
        } catch {
            throw ConfigError(.syntax, source: source, problem: "TOML syntax error: \(error)")
        }
        return try entries(of: table, path: "", depth: 0, source: source)
    }

    private static func entries(
        of table: TOMLTable, path: String, depth: Int, source: String
    ) throws(ConfigError) -> [(key: String, value: ConfigValue)] {
        var result: [(key: String, value: ConfigValue)] = []
        for key in table.keys {
            let dotted = path.isEmpty ? key : "\(path).\(key)"
            // A key whose C string is cut short by a NUL names nothing (or another key).
            guard let node = table[key], !result.contains(where: { $0.key == key }) else {
                throw ConfigError(.notText, source: source, key: dotted, problem: "a key contains a NUL character")
            }
            result.append((key, try value(of: node.tomlValue, path: dotted, depth: depth + 1, source: source)))
        }
        return result
    }

    private static func value(of node: TOMLValue, path: String, depth: Int, source: String) throws(ConfigError) -> ConfigValue {
        guard depth <= maximumDepth else {
            throw ConfigError(.invalidValue, source: source, key: path, problem: "nested more than \(maximumDepth) levels deep")
        }
        switch node.type {
        case .string: return .string(node.string ?? "")
        case .int: return .integer(node.int ?? 0)
        case .double: return .float(node.double ?? 0)
        case .bool: return .boolean(node.bool ?? false)
        case .date: return .dateOrTime("date")
        case .time: return .dateOrTime("time")
        case .dateTime: return .dateOrTime("date-time")
        case .table:
            guard let table = node.table else { return .table([]) }
            return .table(try entries(of: table, path: path, depth: depth, source: source))
        case .array:
            guard let array = node.array else { return .array([]) }
            var elements: [ConfigValue] = []
            elements.reserveCapacity(array.count)
            for index in 0..<array.count {
                guard let element = array[index] else { continue }
                elements.append(try value(of: element, path: "\(path)[\(index)]", depth: depth + 1, source: source))
            }
            return .array(elements)
        }
    }
}

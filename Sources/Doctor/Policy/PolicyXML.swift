/// A small, strict reader for D-Bus bus configuration files.
///
/// Foundation's `XMLParser` would pull libxml2 into the daemon's binary for the sake of one
/// doctor check; busconfig files use a tiny part of XML (elements, attributes, comments, a
/// DOCTYPE), so this reads that part and rejects anything malformed with the line it is on,
/// as dbus-daemon would refuse the file.
struct PolicyXML: Sendable {
    struct Element: Sendable, Hashable {
        var name: String
        var attributes: [String: String]
        var children: [Element]
        /// 1-based line of the start tag, for "decided by FILE:LINE".
        var line: Int
    }

    struct Malformed: Error, Sendable, Hashable, CustomStringConvertible {
        var line: Int
        var reason: String
        var description: String { "line \(line): \(reason)" }
    }

    /// The document's root element.
    static func parse(_ text: String) throws(Malformed) -> Element {
        var reader = Reader(Array(text.utf8))
        return try reader.document()
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0
        var line = 1

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func document() throws(Malformed) -> Element {
            var stack: [Element] = []
            var root: Element?
            while position < bytes.count {
                if bytes[position] != UInt8(ascii: "<") {
                    let text = take { $0 != UInt8(ascii: "<") }
                    if stack.isEmpty, text.contains(where: { !Self.isSpace($0) }) { throw fail("text outside the root element") }
                    continue
                }
                if starts(with: "<!--") {
                    try skip(past: "-->", what: "comment")
                } else if starts(with: "<![CDATA[") {
                    try skip(past: "]]>", what: "CDATA section")
                } else if starts(with: "<?") {
                    try skip(past: "?>", what: "processing instruction")
                } else if starts(with: "<!") {
                    try skipDeclaration()
                } else if starts(with: "</") {
                    position += 2
                    let name = try self.name()
                    skipSpace()
                    try expect(">")
                    guard let closed = stack.popLast() else { throw fail("</\(name)> closes nothing") }
                    guard closed.name == name else { throw fail("</\(name)> closes <\(closed.name)> (line \(closed.line))") }
                    try attach(closed, to: &stack, root: &root)
                } else {
                    let (element, selfClosing) = try startTag()
                    if selfClosing {
                        try attach(element, to: &stack, root: &root)
                    } else {
                        if stack.isEmpty, root != nil { throw fail("a second root element") }
                        stack.append(element)
                    }
                }
            }
            if let open = stack.last { throw Malformed(line: open.line, reason: "<\(open.name)> is never closed") }
            guard let root else { throw fail("no element at all") }
            return root
        }

        /// A finished element becomes its parent's child, or the root when it has no parent.
        private func attach(_ element: Element, to stack: inout [Element], root: inout Element?) throws(Malformed) {
            guard stack.isEmpty else {
                stack[stack.count - 1].children.append(element)
                return
            }
            guard root == nil else { throw fail("a second root element") }
            root = element
        }

        private mutating func startTag() throws(Malformed) -> (Element, Bool) {
            let startLine = line
            position += 1
            let name = try self.name()
            var attributes: [String: String] = [:]
            while true {
                let spaced = skipSpace()
                guard position < bytes.count else { throw fail("<\(name)> is not finished") }
                if starts(with: "/>") {
                    position += 2
                    return (Element(name: name, attributes: attributes, children: [], line: startLine), true)
                }
                if bytes[position] == UInt8(ascii: ">") {
                    position += 1
                    return (Element(name: name, attributes: attributes, children: [], line: startLine), false)
                }
                guard spaced else { throw fail("attributes of <\(name)> must be separated by spaces") }
                let attribute = try self.name()
                skipSpace()
                try expect("=")
                skipSpace()
                guard attributes[attribute] == nil else { throw fail("attribute \(attribute) given twice") }
                attributes[attribute] = try quoted()
            }
        }

        private mutating func quoted() throws(Malformed) -> String {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
                throw fail("an attribute value must be quoted")
            }
            let quote = bytes[position]
            position += 1
            let value = take { $0 != quote && $0 != UInt8(ascii: "<") }
            guard position < bytes.count, bytes[position] == quote else { throw fail("an attribute value is not closed") }
            position += 1
            return try Self.decodeEntities(String(decoding: value, as: UTF8.self), line: line)
        }

        private mutating func name() throws(Malformed) -> String {
            let name = take { Self.isNameByte($0) }
            guard !name.isEmpty else { throw fail("a name was expected") }
            return String(decoding: name, as: UTF8.self)
        }

        /// `<!DOCTYPE … "…>…" [ … ]>`: quotes and an internal subset may hold `>`.
        private mutating func skipDeclaration() throws(Malformed) {
            var quote: UInt8?
            var depth = 0
            while position < bytes.count {
                let byte = bytes[position]
                advance()
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: "[") {
                    depth += 1
                } else if byte == UInt8(ascii: "]") {
                    depth -= 1
                } else if byte == UInt8(ascii: ">"), depth == 0 {
                    return
                }
            }
            throw fail("a <! declaration is never closed")
        }

        private mutating func skip(past end: String, what: String) throws(Malformed) {
            let startLine = line
            let terminator = Array(end.utf8)
            while position < bytes.count {
                if bytes[position...].starts(with: terminator) {
                    position += terminator.count
                    return
                }
                advance()
            }
            throw Malformed(line: startLine, reason: "a \(what) is never closed")
        }

        private mutating func expect(_ character: Character) throws(Malformed) {
            guard position < bytes.count, let ascii = character.asciiValue, bytes[position] == ascii else {
                throw fail("'\(character)' was expected")
            }
            position += 1
        }

        private func starts(with prefix: String) -> Bool {
            bytes[position...].starts(with: prefix.utf8)
        }

        @discardableResult
        private mutating func skipSpace() -> Bool {
            !take(while: Self.isSpace).isEmpty
        }

        private mutating func take(while keep: (UInt8) -> Bool) -> ArraySlice<UInt8> {
            let start = position
            while position < bytes.count, keep(bytes[position]) { advance() }
            return bytes[start..<position]
        }

        private mutating func advance() {
            if bytes[position] == UInt8(ascii: "\n") { line += 1 }
            position += 1
        }

        private func fail(_ reason: String) -> Malformed {
            Malformed(line: line, reason: reason)
        }

        static func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }

        static func isNameByte(_ byte: UInt8) -> Bool {
            (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
                || byte >= 0x80
        }

        /// The five predefined entities and character references; anything else is an error,
        /// as for an XML parser without a DTD.
        static func decodeEntities(_ text: String, line: Int) throws(Malformed) -> String {
            guard text.contains("&") else { return text }
            var result = ""
            var rest = Substring(text)
            while let ampersand = rest.firstIndex(of: "&") {
                result += rest[..<ampersand]
                guard let semicolon = rest[ampersand...].firstIndex(of: ";") else {
                    throw Malformed(line: line, reason: "an & that starts no entity")
                }
                let entity = rest[rest.index(after: ampersand)..<semicolon]
                switch entity {
                case "amp": result += "&"
                case "lt": result += "<"
                case "gt": result += ">"
                case "quot": result += "\""
                case "apos": result += "'"
                default:
                    let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16)
                        : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                    guard let number, let scalar = Unicode.Scalar(number) else {
                        throw Malformed(line: line, reason: "unknown entity &\(entity);")
                    }
                    result.unicodeScalars.append(scalar)
                }
                rest = rest[rest.index(after: semicolon)...]
            }
            return result + rest
        }
    }
}

/// Hex text ⇄ bytes, as frames are written in logs, captures and on the command line.
///
/// Accepted: pairs of hex digits, optionally separated by spaces, tabs, colons or commas, each
/// group optionally prefixed `0x` (`54 08 95`, `54:08:95`, `540895`, `0x54 0x08`). A group
/// with an odd number of digits is an error rather than a guess.
public enum Hex {
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// 1-based column of the offending character.
        public let column: Int
        public let reason: Reason

        public enum Reason: Sendable, Equatable {
            case invalidCharacter(UInt8)
            case oddDigitCount
        }

        public var description: String {
            switch reason {
            case .invalidCharacter(let byte):
                let shown = (0x21...0x7E).contains(byte) ? "'\(Character(UnicodeScalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
                return "invalid hex character \(shown) at column \(column)"
            case .oddDigitCount:
                return "odd number of hex digits in the group ending at column \(column)"
            }
        }
    }

    /// Parses `text` into `bytes` (cleared first, capacity kept), so a caller streaming
    /// millions of lines reuses one buffer.
    public static func parse(_ text: UnsafeBufferPointer<UInt8>, into bytes: inout [UInt8]) -> ParseError? {
        bytes.removeAll(keepingCapacity: true)
        var high: UInt8? = nil
        var index = 0
        let count = text.count
        while index < count {
            let character = text[index]
            if let nibble = nibble(character) {
                if let pending = high {
                    bytes.append(pending << 4 | nibble)
                    high = nil
                } else {
                    high = nibble
                }
            } else if isSeparator(character) {
                if high != nil { return ParseError(column: index, reason: .oddDigitCount) }
            } else if character == UInt8(ascii: "x") || character == UInt8(ascii: "X"),
                high == 0, index >= 1, text[index - 1] == UInt8(ascii: "0"),
                index == 1 || isSeparator(text[index - 2])
            {
                high = nil  // a `0x` prefix: the 0 was not a digit after all
            } else {
                return ParseError(column: index + 1, reason: .invalidCharacter(character))
            }
            index += 1
        }
        if high != nil { return ParseError(column: count, reason: .oddDigitCount) }
        return nil
    }

    public static func bytes(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)
        let error = utf8.withUnsafeMutableBufferPointer { parse(UnsafeBufferPointer($0), into: &bytes) }
        return error == nil ? bytes : nil
    }

    /// Lowercase hex without separators, as `.ftmscap` stores frames.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        var text = ""
        for byte in bytes {
            text.append(Character(UnicodeScalar(digit(byte >> 4))))
            text.append(Character(UnicodeScalar(digit(byte & 0xF))))
        }
        return text
    }

    @inline(__always)
    static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }

    @inline(__always)
    static func isSeparator(_ character: UInt8) -> Bool {
        character == UInt8(ascii: " ") || character == UInt8(ascii: ":") || character == UInt8(ascii: "\t")
            || character == UInt8(ascii: ",")
    }

    static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}

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
            case tooLong
        }

        public var description: String {
            switch reason {
            case .invalidCharacter(let byte):
                let shown = (0x21...0x7E).contains(byte) ? "'\(Character(UnicodeScalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
                return "invalid hex character \(shown) at column \(column)"
            case .oddDigitCount:
                return "odd number of hex digits in the group ending at column \(column)"
            case .tooLong:
                return "frame is longer than \(Hex.maximumFrameLength) bytes, the most an attribute value can hold"
            }
        }
    }

    /// The longest attribute value ATT allows (Core Spec Vol 3 Part F §3.2.9); no
    /// notification, read or write can be longer.
    public static let maximumFrameLength = 512

    /// Parses `text` into `output`, returning the number of bytes written. The caller owns a
    /// fixed buffer of ``maximumFrameLength`` bytes, so streaming millions of lines allocates
    /// nothing.
    public static func parse(
        _ text: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>
    ) -> Result<Int, ParseError> {
        var written = 0
        var high: UInt8 = 0
        var pending = false
        var index = 0
        let count = text.count
        while index < count {
            let character = text[index]
            index += 1
            let digit = character &- UInt8(ascii: "0")
            let letter = (character | 0x20) &- UInt8(ascii: "a")
            let nibble: UInt8
            if digit < 10 {
                nibble = digit
            } else if letter < 6 {
                nibble = letter &+ 10
            } else if isSeparator(character) {
                if pending { return .failure(ParseError(column: index - 1, reason: .oddDigitCount)) }
                continue
            } else if character | 0x20 == UInt8(ascii: "x"), pending, high == 0,
                index == 2 || (index > 2 && isSeparator(text[index - 3]))
            {
                pending = false  // a `0x` prefix: the 0 was not a digit after all
                continue
            } else {
                return .failure(ParseError(column: index, reason: .invalidCharacter(character)))
            }
            if pending {
                guard written < output.count else { return .failure(ParseError(column: index, reason: .tooLong)) }
                output[written] = high << 4 | nibble
                written += 1
                pending = false
            } else {
                high = nibble
                pending = true
            }
        }
        if pending { return .failure(ParseError(column: count, reason: .oddDigitCount)) }
        return .success(written)
    }

    public static func bytes(_ text: String) -> [UInt8]? {
        try? parse(text).get()
    }

    /// Parses a whole string, for callers that are not streaming.
    public static func parse(_ text: String) -> Result<[UInt8], ParseError> {
        var utf8 = Array(text.utf8)
        var output = [UInt8](repeating: 0, count: maximumFrameLength)
        let result = utf8.withUnsafeMutableBufferPointer { text in
            output.withUnsafeMutableBufferPointer { parse(UnsafeBufferPointer(text), into: $0) }
        }
        return result.map { Array(output.prefix($0)) }
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
    static func isSeparator(_ character: UInt8) -> Bool {
        character == UInt8(ascii: " ") || character == UInt8(ascii: ":") || character == UInt8(ascii: "\t")
            || character == UInt8(ascii: ",")
    }

    static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}

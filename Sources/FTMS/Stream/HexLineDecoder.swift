public import JSON

#if canImport(Glibc)
import Glibc
#endif

/// Hex lines in, JSON lines out: the bulk path of `ftms-bridge decode`, over caller-owned buffers.
///
/// It does no I/O (the codec stays pure): the caller reads a large block, hands it to
/// ``consume(_:into:outputLimit:)``, writes out the JSON it produced, keeps the unconsumed
/// tail (the start of a line whose newline has not arrived yet) in front of the next read,
/// and calls ``finish(_:into:)`` with that tail at end of input. Lines are found with `memchr`
/// and decoded where they lie, frames go into one fixed buffer, and every JSON line is written
/// into the caller's ``JSONBuffer``: nothing is allocated per line, and no `String` or
/// Foundation type is on the way unless a line is bad.
///
/// The output is exactly what decoding each line alone with ``Hex/parse(_:into:)``,
/// ``FTMSMessage`` and ``FTMSMessage/writeJSON(into:)`` gives: the fast hex path below only
/// accepts the two common spellings (`4402da` and `44 02 da`), and hands anything else, and
/// every error, to ``Hex/parse(_:into:)``. Tests compare the two over random input.
///
/// Line rules (contract §9): a line ends at `\n`, and one `\r` before it is dropped; a blank line or
/// one whose first non-blank character is `#` is skipped; a line longer than
/// ``maximumLineLength`` bytes is reported as one error, its bytes skipped without being held;
/// a bad line becomes `{"line":N,"error":"…"}`; every line, skipped or not, counts in
/// ``lineNumber``.
public struct HexLineDecoder: ~Copyable {
    public let characteristic: Characteristic
    /// The longest line kept; longer lines are skipped and reported. Callers that keep the
    /// unconsumed tail between reads need a read buffer larger than this.
    public let maximumLineLength: Int
    /// Lines seen so far (the next error reports this number).
    public private(set) var lineNumber = 0
    /// Lines reported as errors.
    public private(set) var failedLines = 0

    /// Bytes of an over-long line seen so far while waiting for its newline; 0 otherwise.
    private var skipping = 0
    /// One frame's bytes, ``Hex/maximumFrameLength`` of them, reused for every line.
    private let frame: UnsafeMutablePointer<UInt8>
    /// Hex digit → nibble for all 256 byte values; 0xFF for anything that is not a hex digit.
    private let nibbles: UnsafeMutablePointer<UInt8>
    private let dataKind: DataRecord.Kind?
    /// Frame bytes to JSON for data records, skipping ``DataRecord`` (it declines truncated frames).
    private let dataWriter: DataFrameJSONWriter?

    /// `linesBefore`: lines that came before the first one given here, so that a decoder
    /// started in the middle of an input (one of several decoding its parts in parallel)
    /// reports the same line numbers as one that read it all.
    public init(characteristic: Characteristic, maximumLineLength: Int = 1 << 16, linesBefore: Int = 0) {
        self.characteristic = characteristic
        self.maximumLineLength = maximumLineLength
        lineNumber = linesBefore
        // The data writer reads each field with one 4-byte load: padding after the last frame byte.
        let frameCapacity = Hex.maximumFrameLength + DataFrameJSONWriter.framePadding
        frame = .allocate(capacity: frameCapacity)
        frame.initialize(repeating: 0, count: frameCapacity)
        nibbles = .allocate(capacity: 256)
        nibbles.initialize(repeating: 0xFF, count: 256)
        for digit in 0..<10 { nibbles[Int(UInt8(ascii: "0")) + digit] = UInt8(digit) }
        for letter in 0..<6 {
            nibbles[Int(UInt8(ascii: "a")) + letter] = UInt8(10 + letter)
            nibbles[Int(UInt8(ascii: "A")) + letter] = UInt8(10 + letter)
        }
        switch characteristic {
        case .indoorBikeData: dataKind = .indoorBikeData
        case .rowerData: dataKind = .rowerData
        default: dataKind = nil
        }
        dataWriter = dataKind.map(DataFrameJSONWriter.init)
    }

    deinit {
        frame.deallocate()
        nibbles.deallocate()
        dataWriter?.deallocate()
    }

    /// Decodes the complete lines at the start of `input` and returns how many bytes they took.
    ///
    /// Stops early, after a whole line, once `json` holds `outputLimit` bytes, so the caller
    /// can write it out and call again with the rest. The bytes not consumed are a partial
    /// line: pass them again, followed by more input (an over-long partial line is consumed
    /// and remembered instead, so the tail never exceeds ``maximumLineLength``).
    public mutating func consume(
        _ input: UnsafeRawBufferPointer, into json: inout JSONBuffer, outputLimit: Int = .max
    ) -> Int {
        guard let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        let end = input.count
        var position = 0
        if skipping > 0 {
            guard let newline = memchr(base, Int32(UInt8(ascii: "\n")), end) else {
                skipping += end
                return end
            }
            let length = base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
            reportTooLong(skipping + length, into: &json)
            skipping = 0
            position = length + 1
        }
        while position < end, json.count < outputLimit {
            guard let found = memchr(base + position, Int32(UInt8(ascii: "\n")), end - position) else {
                if end - position > maximumLineLength {
                    skipping = end - position
                    return end
                }
                return position
            }
            let newline = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            line(base + position, count: newline - position, into: &json)
            position = newline + 1
        }
        return position
    }

    /// End of input: `rest`, what ``consume(_:into:outputLimit:)`` left, is the last line.
    public mutating func finish(_ rest: UnsafeRawBufferPointer, into json: inout JSONBuffer) {
        if skipping > 0 {
            reportTooLong(skipping + rest.count, into: &json)
            skipping = 0
        } else if let base = rest.baseAddress, !rest.isEmpty {
            line(base.assumingMemoryBound(to: UInt8.self), count: rest.count, into: &json)
        }
    }

    /// One frame given whole (a command-line argument): no comment skipping, no length limit
    /// beyond the frame's.
    public mutating func decode(argument text: UnsafeBufferPointer<UInt8>, into json: inout JSONBuffer) {
        lineNumber += 1
        guard let base = text.baseAddress else {
            decodeGeneral(UnsafeBufferPointer(start: nil, count: 0), skipComments: false, into: &json)
            return
        }
        decode(base, count: text.count, skipComments: false, into: &json)
    }

    /// Reports a line of `reason` (e.g. a read error), counting it as a failed line.
    public mutating func reportError(_ reason: String, into json: inout JSONBuffer) {
        failedLines += 1
        json.append(UInt8(ascii: "{"))
        json.appendKey("line", first: true)
        json.appendInteger(lineNumber)
        json.appendKey("error")
        json.appendString(reason)
        json.append("}\n")
    }

    private mutating func reportTooLong(_ length: Int, into json: inout JSONBuffer) {
        lineNumber += 1
        reportError("line is \(length) bytes, longer than any frame", into: &json)
    }

    /// One line without its `\n`.
    @inline(__always)
    private mutating func line(_ start: UnsafePointer<UInt8>, count: Int, into json: inout JSONBuffer) {
        var count = count
        if count > maximumLineLength {
            reportTooLong(count, into: &json)
            return
        }
        if count > 0, start[count - 1] == UInt8(ascii: "\r") { count -= 1 }
        lineNumber += 1
        decode(start, count: count, skipComments: true, into: &json)
    }

    @inline(__always)
    private mutating func decode(
        _ start: UnsafePointer<UInt8>, count: Int, skipComments: Bool, into json: inout JSONBuffer
    ) {
        if let length = parseCommonSpelling(start, count: count) {
            write(length, into: &json)
        } else {
            decodeGeneral(UnsafeBufferPointer(start: start, count: count), skipComments: skipComments, into: &json)
        }
    }

    /// `4402da` or `44 02 da`, nothing else: returns the frame's length, or nil to let
    /// ``Hex/parse(_:into:)`` decide (blank lines, comments, other spellings, errors).
    @inline(__always)
    private func parseCommonSpelling(_ text: UnsafePointer<UInt8>, count: Int) -> Int? {
        guard count >= 2 else { return nil }
        var invalid: UInt8 = 0
        if count >= 3, text[2] == UInt8(ascii: " ") {
            guard count % 3 == 2 else { return nil }
            let length = (count + 1) / 3
            guard length <= Hex.maximumFrameLength else { return nil }
            var index = 0
            var written = 0
            var quadsInvalid: UInt64 = 0
            // Three bytes at a time while a fourth follows: `hh hh hh` is one 8-byte load, its
            // spaces (and the one after it) checked, its three digit pairs packed into one word
            // with "00" on top for ``hexQuad(_:)``. The fourth byte it stores is overwritten.
            while written &+ 3 < length {
                let chars = UInt64(littleEndian: UnsafeRawPointer(text + index).loadUnaligned(as: UInt64.self))
                let spaces = chars &>> 16 & 0xFF | chars &>> 32 & 0xFF00 | UInt64(text[index &+ 8]) &<< 16
                guard spaces == 0x20_2020 else { return nil }
                let digits = chars & 0xFFFF | (chars &>> 24 & 0xFFFF) &<< 16 | (chars &>> 48) &<< 32 | 0x3030 &<< 48
                let quad = Self.hexQuad(digits)
                quadsInvalid |= quad.invalid
                UnsafeMutableRawPointer(frame + written).storeBytes(of: quad.bytes.littleEndian, as: UInt32.self)
                written &+= 3
                index &+= 9
            }
            while written < length {
                let high = nibbles[Int(text[index])]
                let low = nibbles[Int(text[index + 1])]
                invalid |= high | low
                frame[written] = high << 4 | low
                if written + 1 < length, text[index + 2] != UInt8(ascii: " ") { return nil }
                index += 3
                written += 1
            }
            return invalid & 0xF0 == 0 && quadsInvalid == 0 ? length : nil
        }
        guard count & 1 == 0 else { return nil }
        let length = count >> 1
        guard length <= Hex.maximumFrameLength else { return nil }
        var written = 0
        var quadsInvalid: UInt64 = 0
        while written &+ 4 <= length {
            let digits = UInt64(littleEndian: UnsafeRawPointer(text + 2 &* written).loadUnaligned(as: UInt64.self))
            let quad = Self.hexQuad(digits)
            quadsInvalid |= quad.invalid
            UnsafeMutableRawPointer(frame + written).storeBytes(of: quad.bytes.littleEndian, as: UInt32.self)
            written &+= 4
        }
        while written < length {
            let high = nibbles[Int(text[2 * written])]
            let low = nibbles[Int(text[2 * written + 1])]
            invalid |= high | low
            frame[written] = high << 4 | low
            written += 1
        }
        return invalid & 0xF0 == 0 && quadsInvalid == 0 ? length : nil
    }

    /// Eight hex digits (the first in the lowest byte) to four bytes, in one register: each
    /// byte is range-checked as a digit or a letter of either case by adding constants that
    /// carry into its top bit, its nibble is its low four bits plus 9 for a letter, and the
    /// nibbles are folded in pairs. `invalid` has a top bit set for every byte that is not a
    /// hex digit. A quarter of the loads and stores of the table, and no per-byte dependency.
    @inline(__always)
    static func hexQuad(_ digits: UInt64) -> (bytes: UInt32, invalid: UInt64) {
        let tops: UInt64 = 0x8080_8080_8080_8080
        // For bytes below 0x80 (the others are invalid whatever these sums do): the top bit of
        // x + (0x80 − lo) is x ≥ lo, and of x + (0x7F − hi) is x > hi.
        let isDigit = (digits &+ 0x5050_5050_5050_5050) & ~(digits &+ 0x4646_4646_4646_4646)
        let folded = digits | 0x2020_2020_2020_2020  // 'A'–'F' to 'a'–'f'
        let isLetter = (folded &+ 0x1F1F_1F1F_1F1F_1F1F) & ~(folded &+ 0x1919_1919_1919_1919) & tops
        let invalid = digits & tops | ~(isDigit | isLetter) & tops
        let nibbles = (digits & 0x0F0F_0F0F_0F0F_0F0F) &+ (isLetter &>> 7) &* 9
        var bytes = (nibbles &<< 4 | nibbles &>> 8) & 0x00FF_00FF_00FF_00FF
        bytes = (bytes | bytes &>> 8) & 0x0000_FFFF_0000_FFFF
        bytes = bytes | bytes &>> 16
        return (UInt32(truncatingIfNeeded: bytes), invalid)
    }

    /// Every other line, through the general parser and its exact error messages.
    private mutating func decodeGeneral(_ text: UnsafeBufferPointer<UInt8>, skipComments: Bool, into json: inout JSONBuffer) {
        guard let first = text.firstIndex(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else {
            return  // blank
        }
        if skipComments, text[first] == UInt8(ascii: "#") { return }
        switch Hex.parse(text, into: UnsafeMutableBufferPointer(start: frame, count: Hex.maximumFrameLength)) {
        case .success(let length): write(length, into: &json)
        case .failure(let error): reportError(error.description, into: &json)
        }
    }

    @inline(__always)
    private func write(_ length: Int, into json: inout JSONBuffer) {
        if let dataWriter, dataWriter.write(frame, count: length, into: &json) { return }
        let bytes = UnsafeRawBufferPointer(start: frame, count: length)
        if let dataKind {
            DataRecord(kind: dataKind, decoding: bytes).writeJSON(into: &json)
        } else {
            FTMSMessage(characteristic: characteristic, decoding: bytes).writeJSON(into: &json)
        }
        json.append(UInt8(ascii: "\n"))
    }
}

public import JSON

/// Unchecked writes into space a ``JSONBuffer`` has already reserved.
///
/// A writer that knows a bound for a whole message reserves it once
/// (``JSONBuffer/appendReserved(maximum:_:)``) and then writes every byte as a plain store:
/// no capacity check per key or digit. That is what lets `ftms-bridge decode` print a data
/// record in a few dozen nanoseconds. The bound is the writer's responsibility.
struct JSONCursor {
    private(set) var position: UnsafeMutablePointer<UInt8>

    @inline(__always)
    init(_ start: UnsafeMutablePointer<UInt8>) {
        position = start
    }

    @inline(__always)
    mutating func byte(_ value: UInt8) {
        position.pointee = value
        position += 1
    }

    @inline(__always)
    mutating func bytes(_ source: UnsafePointer<UInt8>, count: Int) {
        position.update(from: source, count: count)
        position += count
    }

    /// Copies `blockSize` bytes (a compile-time size, so a few vector moves) of which `count`
    /// count: the source must be readable, and the reservation writable, that far.
    @inline(__always)
    mutating func block(_ source: UnsafePointer<UInt8>, count: Int, blockSize: Int) {
        UnsafeMutableRawPointer(position).copyMemory(from: source, byteCount: blockSize)
        position += count
    }

    @inline(__always)
    mutating func text(_ text: StaticString) {
        bytes(text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// Decimal digits of `value`, at most 10. The width comes from a balanced comparison tree
    /// (three or four compares) rather than a loop whose trip count the branch predictor
    /// cannot learn on varied data.
    @inline(__always)
    mutating func digits(_ value: UInt32) {
        let width: Int
        if value < 10_000 {
            width = value < 100 ? (value < 10 ? 1 : 2) : (value < 1_000 ? 3 : 4)
        } else if value < 1_000_000 {
            width = value < 100_000 ? 5 : 6
        } else if value < 100_000_000 {
            width = value < 10_000_000 ? 7 : 8
        } else {
            width = value < 1_000_000_000 ? 9 : 10
        }
        padded(value, width: width)
    }

    /// "00" to "99", so digits are written two at a time: half the dependent divisions.
    private static let digitPairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// `value` in exactly `width` digits, zero-padded on the left.
    @inline(__always)
    mutating func padded(_ value: UInt32, width: Int) {
        let pairs = Self.digitPairs.utf8Start
        var rest = value
        var digit = position + width
        while digit - position >= 2 {
            let quotient = rest / 100
            let pair = Int(rest &- quotient &* 100) &* 2
            digit -= 2
            digit[0] = pairs[pair]
            digit[1] = pairs[pair + 1]
            rest = quotient
        }
        if digit > position {
            position.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
        }
        position += width
    }

    /// `raw` × `scale` in its shortest exact decimal form, as ``JSONBuffer/appendFixedPoint(_:scale:)``
    /// writes it (at most 13 bytes for an `Int32`).
    @inline(__always)
    mutating func fixedPoint(_ raw: Int32, scale: Scale) {
        if raw < 0 { byte(UInt8(ascii: "-")) }
        let magnitude = raw.magnitude
        switch scale {
        case .one:
            digits(magnitude)
        case .half:
            digits(magnitude >> 1)
            if magnitude & 1 != 0 {
                byte(UInt8(ascii: "."))
                byte(UInt8(ascii: "5"))
            }
        case .tenth: decimal(magnitude, divisor: 10, width: 1)
        case .hundredth: decimal(magnitude, divisor: 100, width: 2)
        case .thousandth: decimal(magnitude, divisor: 1000, width: 3)
        case .tenThousandth: decimal(magnitude, divisor: 10000, width: 4)
        }
    }

    /// `magnitude / divisor` with its fraction, trailing zeros dropped; `divisor` is a
    /// constant at each call, so the divisions become multiplications.
    @inline(__always)
    private mutating func decimal(_ magnitude: UInt32, divisor: UInt32, width: Int) {
        digits(magnitude / divisor)
        var fraction = magnitude % divisor
        guard fraction != 0 else { return }
        byte(UInt8(ascii: "."))
        var width = width
        while fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        padded(fraction, width: width)
    }
}

extension JSONBuffer {
    /// `raw` × `scale` in its shortest exact decimal form: 1173 at 0.01 is `11.73`,
    /// 1100 is `11`, 25 at 0.5 is `12.5`. No floating point is involved.
    public mutating func appendFixedPoint(_ raw: Int32, scale: Scale) {
        appendReserved(maximum: 16) { $0.fixedPoint(raw, scale: scale) }
    }

    /// Reserves `maximum` bytes and lets `body` write up to that many through a cursor; the
    /// buffer then holds exactly what was written.
    @inline(__always)
    mutating func appendReserved(maximum: Int, _ body: (inout JSONCursor) -> Void) {
        withReservedTail(maximum) { start in
            var cursor = JSONCursor(start)
            body(&cursor)
            return start.distance(to: cursor.position)
        }
    }
}

extension JSONCursor {
    /// The decimal digits of `value` (below 10⁸) as eight bytes 0–9, the most significant in
    /// the lowest byte (the first in memory), computed in one 64-bit register: two 4-digit
    /// halves, each split into two pairs, each pair into two digits, every step a multiply by
    /// a reciprocal and a shift on all lanes at once. No division, no loop, no branch: on
    /// random values (`scripts/bench-decode.sh`'s frames) the comparison tree of ``digits(_:)``
    /// mispredicts and this does not.
    @inline(__always)
    static func digitBytes(_ value: UInt32) -> UInt64 {
        let quads = UInt64(value / 10_000) | UInt64(value % 10_000) << 32
        // x / 100 for x < 10⁴ in each 32-bit lane: (x × 10486) >> 20.
        let hundreds = (quads &* 10_486) &>> 20 & 0x0000_007F_0000_007F
        let pairs = hundreds | (quads &- hundreds &* 100) &<< 16
        // x / 10 for x < 100 in each 16-bit lane: (x × 103) >> 10.
        let tens = (pairs &* 103) &>> 10 & 0x000F_000F_000F_000F
        return tens | (pairs &- tens &* 10) &<< 8
    }

    /// Eight bytes stored at the cursor without moving it; the reservation must have room.
    @inline(__always)
    func store(_ word: UInt64) {
        UnsafeMutableRawPointer(position).storeBytes(of: word.littleEndian, as: UInt64.self)
    }

    /// Replaces the byte just written (a list's separator by its closing bracket).
    @inline(__always)
    func overwriteLast(_ value: UInt8) {
        (position - 1).pointee = value
    }

    /// `value` (below 10⁸) in decimal, as ``digits(_:)`` writes it, with one 8-byte store:
    /// the leading zeros are shifted out instead of counted. Needs 8 reserved bytes.
    @inline(__always)
    mutating func shortDigits(_ value: UInt32) {
        let digits = Self.digitBytes(value)
        let leadingZeros = min(digits.trailingZeroBitCount &>> 3, 7)
        store((digits | 0x3030_3030_3030_3030) &>> UInt64(leadingZeros &<< 3))
        position += 8 &- leadingZeros
    }

    /// `raw` × its scale in its shortest exact decimal form, exactly as
    /// ``fixedPoint(_:scale:)`` writes it, for a magnitude (after the step below) under 10⁸,
    /// without a branch: a ``ShortFixedPoint`` says how many of the eight digits are the
    /// fraction. The sign, the integer part and `.fraction` are each stored whole and the
    /// cursor moves past only what counts. Needs 13 reserved bytes plus 8 of slack.
    @inline(__always)
    mutating func shortFixedPoint(_ raw: Int32, _ format: ShortFixedPoint) {
        position.pointee = UInt8(ascii: "-")
        position += raw < 0 ? 1 : 0
        var magnitude = raw.magnitude
        // A half is a tenth ending in 0 or 5.
        let tenths = (magnitude &>> 1) &* 10 &+ (magnitude & 1) &* 5
        magnitude = format.half ? tenths : magnitude
        let digits = Self.digitBytes(magnitude)
        let integer = digits &<< UInt64(format.integerShift)
        let leadingZeros = min(integer.trailingZeroBitCount &>> 3, 7)
        store((integer | 0x3030_3030_3030_3030) &>> UInt64(leadingZeros &<< 3))
        position += 8 &- leadingZeros
        let fractionMask = UInt64(format.fractionMask)
        let fraction = digits &>> UInt64(format.fractionShift) & fractionMask
        store((fraction | fractionMask & 0x3030) &<< 8 | UInt64(UInt8(ascii: ".")))
        // The fraction's last nonzero digit ends it (trailing zeros dropped); none, no point.
        let significant = (71 &- fraction.leadingZeroBitCount) &>> 3
        position += fraction == 0 ? 0 : 1 &+ significant
    }
}

/// How ``JSONCursor/shortFixedPoint(_:_:)`` splits a value's eight digits: the scale of one
/// data-record field, precomputed.
struct ShortFixedPoint: Sendable {
    /// A ½ resolution, written as tenths.
    let half: Bool
    /// 8 × the fraction's digits: shifts them out of the integer part.
    let integerShift: UInt8
    /// Where the fraction's digits start.
    let fractionShift: UInt8
    /// One 0xFF byte per fraction digit.
    let fractionMask: UInt16

    /// `nil` for scales whose values are not written this way (finer than ⅟₁₀₀).
    init?(_ scale: Scale) {
        let fractionDigits: Int
        switch scale {
        case .one: fractionDigits = 0
        case .half, .tenth: fractionDigits = 1
        case .hundredth: fractionDigits = 2
        case .thousandth, .tenThousandth: return nil
        }
        half = scale == .half
        integerShift = UInt8(8 * fractionDigits)
        fractionShift = UInt8(64 - 8 * max(fractionDigits, 1))
        fractionMask = fractionDigits == 0 ? 0 : UInt16((1 << (8 * fractionDigits)) - 1)
    }
}

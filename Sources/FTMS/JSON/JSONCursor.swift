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

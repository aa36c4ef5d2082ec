import JSON
import FTMS

/// Seconds as exact decimal text ⇄ `Duration`, with no floating point in between.
///
/// `.ftmscap` times are decimal seconds. Going through `Double` would turn `0.1` into
/// 0.1000000000000000055 s and make a write → read round trip inexact; parsing the digits
/// straight into attoseconds keeps every written time exact.
enum DecimalSeconds {
    static let attosecondsPerSecond: Int128 = 1_000_000_000_000_000_000

    /// A JSON number (`12.5`, `-3`, `1.5e3`, lenient about a leading `+`) as a duration;
    /// `nil` if it is not a number or is out of `Duration`'s range.
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Duration? {
        var index = 0
        var negative = false
        if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
            negative = text[index] == UInt8(ascii: "-")
            index += 1
        }
        // Up to 18 digits accumulate in 64 bits (fast); beyond that, in 128.
        var small: UInt64 = 0
        var mantissa: Int128 = 0
        var significant = 0
        var exponent = 0
        var digits = 0
        var seenPoint = false
        while index < text.count {
            let character = text[index]
            if character == UInt8(ascii: ".") {
                if seenPoint { return nil }
                seenPoint = true
            } else if let digit = decimalDigit(character) {
                digits += 1
                if significant < 18 {
                    small = small &* 10 &+ UInt64(digit)
                    if small > 0 { significant += 1 }
                    if seenPoint { exponent -= 1 }
                } else if significant < 36 {
                    if significant == 18 { mantissa = Int128(small) }
                    mantissa = mantissa * 10 + Int128(digit)
                    significant += 1
                    if seenPoint { exponent -= 1 }
                } else if !seenPoint {
                    exponent += 1  // digits past 36 significant ones only scale the integer part
                }
            } else {
                break
            }
            index += 1
        }
        if significant <= 18 { mantissa = Int128(small) }
        guard digits > 0 else { return nil }
        if index < text.count {
            guard text[index] | 0x20 == UInt8(ascii: "e") else { return nil }
            index += 1
            var exponentNegative = false
            if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                exponentNegative = text[index] == UInt8(ascii: "-")
                index += 1
            }
            var written = 0
            var exponentDigits = 0
            while index < text.count, let digit = decimalDigit(text[index]) {
                written = min(written * 10 + Int(digit), 10_000)
                exponentDigits += 1
                index += 1
            }
            guard exponentDigits > 0, index == text.count else { return nil }
            exponent += exponentNegative ? -written : written
        }
        guard let attoseconds = scale(mantissa, byPowerOfTen: exponent + 18) else { return nil }
        return Duration(attoseconds: negative ? -attoseconds : attoseconds)
    }

    /// `mantissa × 10^power`, truncated toward zero below an attosecond; `nil` on overflow.
    private static func scale(_ mantissa: Int128, byPowerOfTen power: Int) -> Int128? {
        guard mantissa != 0 else { return 0 }
        if power < 0 { return -power < powersOfTen.count ? mantissa / powersOfTen[-power] : 0 }
        guard power < powersOfTen.count else { return nil }
        let (product, overflow) = mantissa.multipliedReportingOverflow(by: powersOfTen[power])
        return overflow ? nil : product
    }

    /// 10⁰ … 10³⁸, the powers that fit an `Int128`.
    private static let powersOfTen: [Int128] = {
        var powers: [Int128] = [1]
        while powers.count < 39 { powers.append(powers[powers.count - 1] * 10) }
        return powers
    }()

    @inline(__always)
    private static func decimalDigit(_ character: UInt8) -> UInt8? {
        let digit = character &- UInt8(ascii: "0")
        return digit < 10 ? digit : nil
    }

    /// The shortest exact decimal form: `12.5`, `0`, `-0.25`, `3.000001`.
    static func append(_ duration: Duration, to buffer: inout JSONBuffer) {
        let attoseconds = duration.attoseconds
        if attoseconds < 0 { buffer.append(UInt8(ascii: "-")) }
        let magnitude = attoseconds.magnitude
        let (seconds, fraction) = magnitude.quotientAndRemainder(dividingBy: UInt128(attosecondsPerSecond))
        if let small = UInt64(exactly: seconds) {
            buffer.appendInteger(small)
        } else {
            buffer.append(contentsOf: String(seconds).utf8)
        }
        appendFraction(UInt64(fraction), digits: 18, to: &buffer)
    }

    /// `.ddd` for a fraction of `10^digits`, trailing zeros dropped; nothing for zero.
    static func appendFraction(_ fraction: UInt64, digits: Int, to buffer: inout JSONBuffer) {
        guard fraction != 0 else { return }
        var rest = fraction
        var width = digits
        while rest % 10 == 0 {
            rest /= 10
            width -= 1
        }
        buffer.append(UInt8(ascii: "."))
        var divisor: UInt64 = 1
        for _ in 1..<max(width, 1) { divisor *= 10 }
        while divisor > 0 {
            buffer.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            divisor /= 10
        }
    }
}

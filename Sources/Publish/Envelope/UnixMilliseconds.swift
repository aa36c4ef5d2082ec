import JSON
import FTMS

/// A timestamp as whole Unix milliseconds, written as seconds with exactly three decimals
/// (`1763712000.123`, `1763712000.100`).
///
/// Integer milliseconds, not a `Double` printed, so no reader ever sees `…0.12299999`; a fixed
/// three decimals so every line's timestamp has the same width and form.
struct UnixMilliseconds: Sendable, Hashable {
    var value: Int64

    /// Rounds to the nearest millisecond. A clock that returns nonsense (not finite, before
    /// 1970, past year 200000) gives 0 rather than a trap: the line still goes out.
    init(unixSeconds: Double) {
        let milliseconds = (unixSeconds * 1000).rounded()
        value = milliseconds.isFinite && milliseconds >= 0 && milliseconds < 6.3e15 ? Int64(milliseconds) : 0
    }

    func writeJSON(into json: inout JSONBuffer) {
        json.appendInteger(value / 1000)
        json.append(UInt8(ascii: "."))
        let fraction = Int(value % 1000)
        json.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        json.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        json.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }
}

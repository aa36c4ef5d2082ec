import CivilTime
import JSON
import FTMS

/// A timestamp as whole Unix milliseconds, written as seconds with exactly three decimals
/// (`1763712000.123`, `1763712000.100`).
///
/// Integer milliseconds, not a `Double` printed, so no reader ever sees `…0.12299999`; a fixed
/// three decimals so every line's timestamp has the same width and form.
struct UnixMilliseconds: Sendable, Hashable {
    var value: Int64

    /// A clock that returns nonsense (before 1970, past year 200000) gives 0 rather than a
    /// trap: the line still goes out.
    init(_ time: UTCTime) {
        value = (0..<6_300_000_000_000_000).contains(time.millisecondsSince1970) ? time.millisecondsSince1970 : 0
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

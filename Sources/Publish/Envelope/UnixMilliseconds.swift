import CivilTime
import JSON
import FTMS

/// A timestamp as whole Unix milliseconds, written as seconds with exactly three decimals
/// (`1763712000.123`, `1763712000.100`).
///
/// Integer milliseconds, not a `Double` printed, so no reader ever sees `…0.12299999`; a fixed
/// three decimals so every line's timestamp has the same width and form.
public struct UnixMilliseconds: Sendable, Hashable {
    /// What a timestamp can be: from 1970 to about year 200000.
    static let range: Range<Int64> = 0..<6_300_000_000_000_000

    public var value: Int64

    /// 1970-01-01T00:00:00Z: what a broken clock writes, and where a reader starts.
    static let epoch = UnixMilliseconds(UTCTime(millisecondsSince1970: 0))

    /// A clock that returns nonsense (before 1970, past year 200000) gives 0 rather than a
    /// trap: the line still goes out.
    init(_ time: UTCTime) {
        value = Self.range.contains(time.millisecondsSince1970) ? time.millisecondsSince1970 : 0
    }

    /// The time a line's `timestamp` gives, to the millisecond; nil if it is not one the writer
    /// could have written (negative, past year 200000, not a number).
    public init?(seconds: Double) {
        let milliseconds = (seconds * 1000).rounded()
        guard milliseconds >= Double(Self.range.lowerBound), milliseconds < Double(Self.range.upperBound) else { return nil }
        value = Int64(milliseconds)
    }

    /// Unix seconds, for a reader that counts time in them (the dashboard's tiles).
    public var seconds: Double { Double(value) / 1000 }

    func writeJSON(into json: inout JSONBuffer) {
        json.appendInteger(value / 1000)
        json.append(UInt8(ascii: "."))
        let fraction = Int(value % 1000)
        json.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        json.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        json.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }
}

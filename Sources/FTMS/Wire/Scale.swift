/// The resolution of a field: the raw integer times the scale is the value in its unit.
///
/// Scales are powers of ten or one half, so every value has an exact short decimal form
/// (`1173` at ``hundredth`` is exactly `11.73`). JSON output is written from the integer,
/// never through floating point, which is how "12.5, not 12.500000001" is guaranteed.
public enum Scale: Sendable, Hashable {
    case one
    case half
    case tenth
    case hundredth
    case thousandth
    case tenThousandth

    /// Power of ten in the denominator (``half`` is handled apart).
    @inlinable
    var decimals: Int {
        switch self {
        case .one, .half: 0
        case .tenth: 1
        case .hundredth: 2
        case .thousandth: 3
        case .tenThousandth: 4
        }
    }

    @inlinable
    var divisor: Double {
        switch self {
        case .one: 1
        case .half: 2
        case .tenth: 10
        case .hundredth: 100
        case .thousandth: 1000
        case .tenThousandth: 10000
        }
    }

    /// The value in its unit.
    @inlinable
    public func value(ofRaw raw: Int32) -> Double {
        Double(raw) / divisor
    }

    /// The nearest raw integer for a value in its unit (for encoding).
    @inlinable
    public func raw(ofValue value: Double) -> Int32 {
        let scaled = (value * divisor).rounded()
        guard scaled.isFinite else { return 0 }
        return Int32(max(min(scaled, Double(Int32.max)), Double(Int32.min)))
    }
}

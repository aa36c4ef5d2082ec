/// The fixed precisions of the summary's figures. Rounding is half away from zero, on the
/// value, once; the JSON then prints the stored integer of tenths or hundredths exactly.
enum Rounding {
    static func tenths(_ value: Double?) -> Double? {
        value.flatMap { $0.isFinite ? ($0 * 10).rounded() / 10 : nil }
    }

    static func hundredths(_ value: Double?) -> Double? {
        value.flatMap { $0.isFinite ? ($0 * 100).rounded() / 100 : nil }
    }

    /// The integer a rounded figure prints from, clamped to what the JSON writer takes.
    static func raw(_ value: Double, scale: Double) -> Int32 {
        let scaled = (value * scale).rounded()
        guard scaled.isFinite else { return 0 }
        return Int32(max(min(scaled, Double(Int32.max)), Double(Int32.min)))
    }
}

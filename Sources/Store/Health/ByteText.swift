/// A size as an operator reads it in `status`, `STATUS=` and the journal: `0 B`, `512 KiB`,
/// `2.0 MiB`, `1.2 GiB` (binary units, one decimal, rounded down: free space is never overstated).
public enum ByteText {
    public static func of(_ count: Int64) -> String {
        func tenths(_ unit: Int64) -> String { "\(count * 10 / unit / 10).\(count * 10 / unit % 10)" }
        switch count {
        case ..<1024: return "\(max(0, count)) B"
        case ..<(1 << 20): return "\(count / 1024) KiB"
        case ..<(1 << 30): return tenths(1 << 20) + " MiB"
        default: return tenths(1 << 30) + " GiB"
        }
    }
}

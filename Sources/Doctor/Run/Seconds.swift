import Clocks
import Foundation

/// Durations as an operator reads them: `3 s`, `0.5 s`, `12 ms`.
enum Seconds {
    static func value(_ duration: Duration) -> Double {
        duration.seconds
    }

    static func text(_ duration: Duration) -> String {
        let seconds = value(duration)
        if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
        let rounded = (seconds * 10).rounded() / 10
        return rounded == rounded.rounded() ? "\(Int(rounded)) s" : String(format: "%.1f s", rounded)
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int((value(duration) * 1000).rounded())
    }
}

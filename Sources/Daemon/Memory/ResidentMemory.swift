/// What the daemon gives back to the kernel when a rare path (an upload, a reload, a control
/// command) has left pages resident that riding does not use: the page-table entries of clean
/// file mappings (see ``StartupPages``) and the free pages of every malloc arena (see
/// ``MallocTuning``). docs/performance.md, "Where the RSS goes", has the figures.
public enum ResidentMemory {
    /// Trims now; returns the KiB of file pages that were resident in the released mappings.
    /// Reads `/proc/self/smaps` once: about a millisecond, on the caller's thread.
    @discardableResult
    public static func trim() -> Int {
        let released = StartupPages.release(readOnlyData: true)
        MallocTuning.trim()
        return released
    }
}

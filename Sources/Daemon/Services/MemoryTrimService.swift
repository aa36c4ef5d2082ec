public import ServiceLifecycle
public import Logging

/// Every `interval`, gives back the memory a long-running daemon holds but is not using
/// (``ResidentMemory/trim()``; the daemon also trims after each upload round).
///
/// Two kinds, both measured in docs/performance.md ("Where the RSS goes"):
/// * **Code and read-only data pages of rare paths.** An upload, a config reload, a login
///   check or a control command runs code the riding path never runs; Linux maps file-backed
///   pages 64 KiB around each fault, so every such path leaves hundreds of KiB of library and
///   binary pages counted in RSS until the process ends. `StartupPages.release()` drops the
///   page-table entries of every clean file mapping; the pages stay in the page cache, and the
///   riding path's own pages fault back in within seconds (minor faults, no I/O).
/// * **Free heap.** `malloc_trim(0)` gives each arena's free pages back.
///
/// The first rounds come sooner (`settling`, twice): connecting machines, restoring sessions,
/// the first upload and the trainings refresh all run once in the first seconds, after the
/// start-up release, and would otherwise stay resident until the first full interval.
///
/// One round reads `/proc/self/smaps` once and costs about a millisecond and a few hundred
/// minor faults; at the default one minute that is far below what one second of riding costs.
public struct MemoryTrimService: Service {
    public let interval: Duration
    public let settling: Duration
    public let timers: any Clock<Duration>
    let logger: Logger

    public init(interval: Duration = .seconds(60), settling: Duration = .seconds(15), timers: any Clock<Duration>, logger: Logger) {
        self.interval = interval
        self.settling = settling
        self.timers = timers
        self.logger = logger
    }

    public func run() async throws {
        let interval = interval
        let settling = settling
        let timers = timers
        let logger = logger
        await cancelWhenGracefulShutdown {
            var round = 0
            while !Task.isCancelled {
                do {
                    try await timers.sleep(for: round < 2 ? settling : interval)
                    round += 1
                } catch {
                    return
                }
                let started = ContinuousClock.now
                let released = ResidentMemory.trim()
                logger.debug("memory trim: released \(released) KiB of clean file pages in \(ContinuousClock.now - started)")
            }
        }
    }
}

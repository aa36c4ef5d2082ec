import Logging
import ServiceLifecycle
import Store
import Workout

/// Dates that are true (contract §5), kept up in the background: what the daemon knows of the
/// wall clock goes to the store (a daemon restarted in this boot carries on from it), sessions
/// that finished while the clock was not true are dated as soon as it is, and once the wait
/// for it is over (`[backend] clock_sync_wait` after boot) they are dated as well as can be
/// and uploaded; either way the uploader is woken.
///
/// It looks every few seconds while sessions wait for a clock that is not true, and once a
/// minute otherwise: an idle gateway with a synchronised clock wakes for it once a minute.
struct ClockService: Service {
    let clock: SystemWallClock
    let store: GatewayStore
    /// How long after boot a session waits for a true clock before it is dated as well as can be.
    let wait: Duration
    /// No estimate starts before this (the build's date): see ``GatewayStore/dateSessions(boot:offset:isTrue:floor:)``.
    let buildFloor: UTCTime
    let timers: any Clock<Duration>
    let logger: Logger
    /// Sessions were dated: the uploader may have work.
    let dated: @Sendable () async -> Void

    static let quickLook = Duration.seconds(5)
    static let slowLook = Duration.seconds(60)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var kept: StoredWallClock?
            var failing = false
            while !Task.isCancelled {
                let next: Duration
                do {
                    next = try await look(kept: &kept)
                    if failing { logger.notice("wall clock: the store accepts its bookkeeping again") }
                    failing = false
                } catch {
                    if !failing { logger.warning("wall clock: could not keep its state or date sessions (tried again): \(error)") }
                    failing = true
                    next = Self.quickLook
                }
                do {
                    try await timers.sleep(for: next)
                } catch {
                    return
                }
            }
        }
    }

    /// One look: keeps the clock's state, dates what can be dated; returns when to look again.
    private func look(kept: inout StoredWallClock?) async throws -> Duration {
        let judge = clock.judge()
        guard let reading = judge.last, let offset = judge.offset else { return Self.slowLook }
        if let boot = clock.boot, let memory = judge.memory(boot: boot), memory != kept {
            try await store.saveWallClock(memory)
            kept = memory
        }
        let undated = try await store.undatedSessions()
        guard undated.waiting + undated.estimated > 0 else { return Self.slowLook }
        var dated = 0
        if judge.isTrusted, let boot = clock.boot {
            let count = try await store.dateSessions(boot: boot, offset: offset, isTrue: true, floor: buildFloor)
            if count > 0 { logger.notice("wall clock \(judge.explanation): \(count) finished session(s) dated by it") }
            dated += count
        }
        let waitLeft = wait - reading.boottime
        if waitLeft <= .zero {
            if !judge.isTrusted, reading.wall >= judge.floor, let boot = clock.boot {
                let count = try await store.dateSessions(boot: boot, offset: offset, isTrue: false, floor: buildFloor)
                if count > 0 {
                    logger.warning(
                        "wall clock \(judge.explanation) \(Self.seconds(wait)) s after boot: \(count) finished session(s) go up with its dates, marked unsynchronised")
                }
                dated += count
            }
            let earlier = try await store.estimateOtherBoots(current: clock.boot, floor: buildFloor)
            if earlier > 0 {
                logger.warning("\(earlier) finished session(s) of an earlier boot never had a true clock: they go up with the dates it gave, marked unsynchronised")
            }
            dated += earlier
        }
        if dated > 0 { await self.dated() }
        let remaining = try await store.undatedSessions().waiting
        guard remaining > 0, !judge.isTrusted || waitLeft > .zero else { return Self.slowLook }
        return waitLeft > .zero ? min(Self.quickLook, waitLeft) : Self.quickLook
    }

    static func seconds(_ duration: Duration) -> Int64 { duration.components.seconds }
}

import Clocks
import Logging
import OwnThread
import ProcessOutput
import ServiceLifecycle
import Store
import Workout

/// Dates that are true (contract §5), kept up in the background: what the daemon knows of the
/// wall clock goes to the store (a daemon restarted in this boot carries on from it), sessions
/// that finished while no true time was known are dated as soon as one is (the system clock
/// trusted, or the backend's), and once the wait for it is over (`[backend] clock_sync_wait`
/// after boot) they are dated as well as can be and uploaded; either way the uploader is woken.
///
/// It looks when woken (``ClockWakes``: a session stored, the wall clock set, the backend's time
/// learned, an operator's `upload`), every few seconds while sessions wait, and once a minute
/// otherwise: an idle gateway with a synchronised clock wakes for it once a minute. It reads
/// systemd-timedated's `NTPSynchronized` when woken, and once a minute while the clock is not
/// trusted.
struct ClockService: Service {
    let clock: SystemWallClock
    let store: GatewayStore
    /// How long after boot a session waits for a true clock before it is dated as well as can be.
    let wait: Duration
    /// No estimate starts before this (the build's date): see ``GatewayStore/dateSessions(boot:offset:isTrue:floor:)``.
    let buildFloor: UTCTime
    let timers: any Clock<Duration>
    let logger: Logger
    let wakes: ClockWakes
    /// timedated on the system bus; `nil`: not asked.
    let timedated: TimedatedSync?
    /// Asks the backend for its `Date` (its answer reaches ``clock`` through the client's
    /// witness); `nil` without a believed backend.
    let askBackend: (@Sendable () async throws -> Void)?
    /// Sessions were dated: the uploader may have work.
    let dated: @Sendable () async -> Void

    static let quickLook = Duration.seconds(5)
    static let slowLook = Duration.seconds(60)
    /// The backend is asked for its time at most this often; not a whole number of seconds, so
    /// that successive answers fall at different points of the backend's second.
    static let askInterval = Duration.milliseconds(7_300)
    /// While the system clock is not trusted, the backend's time is asked up to this many times
    /// more (once per run of the daemon) to narrow it to ``narrowEnough``.
    static let narrowingAsks = 12
    static let narrowEnough: Int64 = 300

    /// What one look leaves for the next.
    private struct Memory {
        var kept: StoredWallClock?
        var timedatedAt: Duration?
        var timedated: Bool?
        var timedatedProblem: String?
        var askedAt: Duration?
        var askProblem: String?
        var stuckBelowFloor = false
        var narrowingAsks = 0
    }

    func run() async throws {
        let steps: WallClockStepWatch?
        do {
            steps = try WallClockStepWatch()
        } catch {
            logger.warning("wall clock: steps are seen at the next look only: \(error)")
            steps = nil
        }
        let watching = Task { [wakes, logger] in
            while let steps {
                switch await onOwnThread({ steps.waitForStep() }) {
                case .stepped:
                    logger.debug("wall clock: set (timerfd cancelled)")
                    wakes.wake()
                case .failed(let error):
                    logger.warning("wall clock: no longer told of steps (timerfd: \(errnoText(error))); they are seen at the next look")
                    return
                case .nothing, .expired:
                    return
                }
            }
        }
        defer {
            steps?.stop()
            watching.cancel()
        }
        await cancelWhenGracefulShutdown {
            var memory = Memory()
            var failing = false
            var woken = true
            while !Task.isCancelled {
                let next: Duration
                do {
                    next = try await look(&memory, woken: woken)
                    if failing { logger.notice("wall clock: the store accepts its bookkeeping again") }
                    failing = false
                } catch where Task.isCancelled {
                    break  // the daemon stops: a store call cut short is not a failing store
                } catch {
                    if !failing { logger.warning("wall clock: could not keep its state or date sessions (tried again): \(error)") }
                    failing = true
                    next = Self.quickLook
                }
                let wakes = wakes
                let answer: Void? = await withTimeout(next, on: timers) { await wakes.next() }
                woken = answer != nil
                if Task.isCancelled { break }
            }
        }
        await timedated?.close()
    }

    /// One look: reads timedated, keeps the clock's state, dates what can be dated; returns when
    /// to look again.
    private func look(_ memory: inout Memory, woken: Bool) async throws -> Duration {
        await readTimedated(&memory, woken: woken)
        var judge = clock.judge()
        guard let reading = judge.last, judge.offset != nil else { return Self.slowLook }
        if let boot = clock.boot, let kept = judge.memory(boot: boot), kept != memory.kept {
            try await store.saveWallClock(kept)
            memory.kept = kept
        }
        var undated = try await store.undatedSessions()
        // The backend's time, asked while sessions wait for a date and none is known, and a few
        // times more while the system clock is not trusted and the backend's is still wide: at
        // ``askInterval``'s odd period, each answer falls at another point of its second.
        let narrowing = !judge.isTrusted && memory.narrowingAsks < Self.narrowingAsks
            && (judge.referenceUncertainty ?? .max) > Self.narrowEnough
        if askBackend != nil, (undated.waiting > 0 && !judge.datesAreTrue) || narrowing {
            if await askBackendTime(&memory, now: reading.boottime), narrowing { memory.narrowingAsks += 1 }
            judge = clock.judge()
        }
        let stillNarrowing = askBackend != nil && !judge.isTrusted && memory.narrowingAsks < Self.narrowingAsks
            && (judge.referenceUncertainty ?? .max) > Self.narrowEnough
        let idle = stillNarrowing ? Self.askInterval : Self.slowLook
        guard undated.waiting + undated.estimated > 0 else { return idle }
        var dated = 0
        if let offset = judge.datingOffset, let boot = clock.boot {
            let count = try await store.dateSessions(boot: boot, offset: offset, isTrue: true, floor: buildFloor)
            if count > 0 { logger.notice("wall clock \(judge.explanation): \(count) finished session(s) dated by it") }
            dated += count
        }
        let waitLeft = wait - reading.boottime
        if waitLeft <= .zero {
            if !judge.datesAreTrue, let boot = clock.boot, let offset = judge.offset {
                if reading.wall >= judge.floor {
                    let count = try await store.dateSessions(boot: boot, offset: offset, isTrue: false, floor: buildFloor)
                    if count > 0 {
                        logger.warning(
                            "wall clock \(judge.explanation) \(Self.seconds(wait)) s after boot: \(count) finished session(s) go up with its dates, marked unsynchronised")
                    }
                    dated += count
                    memory.stuckBelowFloor = false
                } else if undated.waiting > 0, !memory.stuckBelowFloor {
                    logger.warning(
                        "wall clock \(judge.explanation): \(undated.waiting) finished session(s) wait on, \(Self.seconds(wait)) s after boot, for NTP, a step or the backend's Date\(memory.askProblem.map { " (the backend: \($0))" } ?? "")")
                    memory.stuckBelowFloor = true
                }
            }
            let earlier = try await store.estimateOtherBoots(current: clock.boot, floor: buildFloor)
            if earlier > 0 {
                logger.warning("\(earlier) finished session(s) of an earlier boot never had a true clock: they go up with the dates it gave, marked unsynchronised")
            }
            dated += earlier
        }
        if dated > 0 { await self.dated() }
        undated = try await store.undatedSessions()
        guard undated.waiting > 0 else { return idle }
        return waitLeft > .zero ? min(Self.quickLook, waitLeft) : Self.quickLook
    }

    /// timedated's `NTPSynchronized`, when woken, or a minute after the last read while the clock
    /// is not trusted, handed to the clock; a change is logged, and so is the first failure.
    /// timedated is bus-activated and exits when idle, so an idle gateway whose clock is trusted
    /// does not start it every minute.
    private func readTimedated(_ memory: inout Memory, woken: Bool) async {
        guard let timedated else { return }
        let now = SystemClocks.boottime()
        let due = !clock.judge(reading: false).isTrusted && memory.timedatedAt.map({ now - $0 >= Self.slowLook }) ?? true
        guard woken || due else { return }
        memory.timedatedAt = now
        switch await timedated.synchronised() {
        case .success(let synchronised):
            clock.timedated(synchronised: synchronised)
            if memory.timedated != synchronised {
                logger.info("wall clock: systemd-timedated says it is \(synchronised ? "synchronised" : "not synchronised")")
            }
            memory.timedated = synchronised
            memory.timedatedProblem = nil
        case .failure(let problem):
            if memory.timedatedProblem == nil { logger.notice("wall clock: \(problem) (the kernel's own flag is read instead)") }
            memory.timedatedProblem = problem.description
            if memory.timedated == true { clock.timedated(synchronised: false) }
            memory.timedated = nil
        }
    }

    /// Asks the backend for its `Date`, at most every ``askInterval``; returns whether it asked.
    @discardableResult
    private func askBackendTime(_ memory: inout Memory, now: Duration) async -> Bool {
        guard let askBackend, memory.askedAt.map({ now - $0 >= Self.askInterval }) ?? true else { return false }
        defer { memory.askedAt = now }
        do {
            try await askBackend()
            memory.askProblem = nil
        } catch {
            if memory.askProblem == nil { logger.info("wall clock: the backend's time could not be read: \(error)") }
            memory.askProblem = "\(error)"
        }
        return true
    }

    static func seconds(_ duration: Duration) -> Int64 { duration.components.seconds }
}

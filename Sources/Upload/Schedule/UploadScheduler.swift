import Workout

/// When the daemon uploads (contract §6): at start-up, after every finished session, and on a
/// retry timer with backoff and jitter that honours `Retry-After` — because a daemon, unlike
/// SolidFocus's phone app, has no "next app start" to retry on.
///
/// The daemon runs ``run()`` in a task for its lifetime and calls ``sessionFinished()``
/// when the engine stores a session. Triggers that arrive during a run are coalesced into one
/// more run after it; a trigger during a `Retry-After` wait runs when the wait is over. An
/// operator's ``uploadNow()`` (the control socket's `upload`) ends any wait, `Retry-After`'s
/// included: someone who knows the backend is back should not have to wait for it.
package actor UploadScheduler {
    package let policy: RetryPolicy
    /// How long to wait with nothing to retry before looking again: sessions may also be
    /// queued by another process (`ftms-bridge replay --queue`), and a login done with the
    /// CLI unblocks a waiting daemon.
    package let idleInterval: Duration
    private let upload: @Sendable () async -> UploadOutcome
    /// The waits, and the time a `Retry-After` wait is over by; the daemon's event-loop clock,
    /// or a test's manual one.
    private let sleep: @Sendable (Duration) async throws -> Void
    private let now: @Sendable () -> Duration
    private var random: any RandomNumberGenerator & Sendable
    private var consecutiveFailures = 0
    private var wakePending = false
    private var waiter: CheckedContinuation<Void, Never>?
    private var waitGeneration = 0
    /// No run may start before this (a `Retry-After`), triggers or not; ``uploadNow()`` clears it.
    private var notBefore: Duration?

    /// Runs so far, and the delays chosen after each: what the daemon's status reports.
    package private(set) var runs = 0
    package private(set) var delays: [Duration] = []

    package init(
        policy: RetryPolicy = RetryPolicy(), idleInterval: Duration = .seconds(900),
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        timers: some Clock<Duration> = ContinuousClock(),
        upload: @escaping @Sendable () async -> UploadOutcome
    ) {
        self.policy = policy
        self.idleInterval = idleInterval
        self.random = random
        let origin = timers.now
        now = { origin.duration(to: timers.now) }
        sleep = { try await timers.sleep(for: $0) }
        self.upload = upload
    }

    /// A scheduler running `service`'s batch upload procedure. A store failure counts as a
    /// passing failure: the disk may come back.
    package init(service: SyncService, policy: RetryPolicy = RetryPolicy(), idleInterval: Duration = .seconds(900)) {
        self.init(policy: policy, idleInterval: idleInterval) {
            (try? await service.uploader.run())?.outcome ?? .retry(retryAfter: nil)
        }
    }

    /// Uploads now (start-up), then after each trigger or timer, until the task is cancelled.
    package func run() async {
        while !Task.isCancelled {
            let outcome = await upload()
            runs += 1
            let delay: Duration
            switch outcome {
            case .settled, .blocked:
                consecutiveFailures = 0
                notBefore = nil
                delay = idleInterval
            case .retry(let retryAfter):
                consecutiveFailures += 1
                delay = policy.delay(afterFailures: consecutiveFailures, retryAfter: retryAfter, using: &random)
                notBefore = retryAfter.map { _ in now() + delay }
            }
            delays.append(delay)
            await wait(upTo: delay)
            // A trigger may end the wait early, but not a wait the backend asked for: only
            // ``uploadNow()`` clears that.
            while !Task.isCancelled, let notBefore, now() < notBefore {
                await wait(upTo: notBefore - now(), ignoringTriggers: true)
            }
        }
    }

    /// A session was stored: upload soon.
    package func sessionFinished() {
        wake(generation: nil)
    }

    /// An operator asked for an upload: now, whatever the wait, a `Retry-After` included.
    package func uploadNow() {
        notBefore = nil
        wake(generation: nil)
    }

    private func wait(upTo delay: Duration, ignoringTriggers: Bool = false) async {
        if wakePending, !ignoringTriggers {
            wakePending = false
            return
        }
        waitGeneration += 1
        let generation = waitGeneration
        let timer = Task { [sleep] in
            do { try await sleep(delay) } catch { return }
            self.wake(generation: generation)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled { continuation.resume() } else { waiter = continuation }
            }
        } onCancel: {
            Task { await self.wake(generation: nil, cancelling: true) }
        }
        timer.cancel()
    }

    /// Resumes the wait. A timer's wake names its wait, so a timer that fires after a trigger
    /// already ended that wait cannot end the next one early.
    private func wake(generation: Int?, cancelling: Bool = false) {
        if let generation, generation != waitGeneration { return }
        guard let waiter else {
            if generation == nil, !cancelling { wakePending = true }
            return
        }
        self.waiter = nil
        waiter.resume()
    }
}

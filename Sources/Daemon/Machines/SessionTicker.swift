/// One timer for every open session of the fleet, instead of one per worker.
///
/// A session engine needs a tick about once a second while its session is open (to notice
/// a rider who stopped, a grace that ran out, a checkpoint that is due; contract §5). With a
/// timer per worker, ten riders meant ten timers at ten different phases: ten wake-ups of the
/// event loop a second besides the notifications, each costing as much as the tick's own work
/// (docs/performance.md). Here every worker with an open session is ticked
/// from one timer, in one wake-up. A session's first tick comes within one interval of its
/// opening instead of exactly one interval after; the engine reads the clock at each tick, so
/// nothing it decides depends on the phase.
///
/// The timer runs only while some worker is registered, so an idle gym still costs nothing.
actor SessionTicker {
    private let interval: Duration
    private let timers: any Clock<Duration>
    private var workers: [ObjectIdentifier: any SessionTicked] = [:]
    /// Registrations per worker: a worker that registered again while its last tick was
    /// answering "no session" stays.
    private var registrations: [ObjectIdentifier: Int] = [:]
    private var task: Task<Void, Never>?

    init(interval: Duration = .seconds(1), timers: any Clock<Duration>) {
        self.interval = interval
        self.timers = timers
    }

    /// Ticks `worker` until a tick finds no session open (again registering changes nothing).
    func register(_ worker: any SessionTicked) {
        let id = ObjectIdentifier(worker)
        workers[id] = worker
        registrations[id, default: 0] += 1
        guard task == nil else { return }
        let interval = interval
        task = Task { [weak self, timers] in
            while !Task.isCancelled {
                try? await timers.sleep(for: interval)
                guard !Task.isCancelled, let self else { break }
                await self.tickAll()
            }
        }
    }

    /// Stops ticking `worker` (the daemon is stopping); the timer stops with the last one.
    func unregister(_ worker: any SessionTicked) {
        remove(ObjectIdentifier(worker))
    }

    private func tickAll() async {
        for (id, worker) in workers {
            let registered = registrations[id]
            let open = await worker.tick()
            if !open, registrations[id] == registered { remove(id) }
        }
    }

    private func remove(_ id: ObjectIdentifier) {
        workers[id] = nil
        registrations[id] = nil
        if workers.isEmpty {
            task?.cancel()
            task = nil
        }
    }
}

/// What ``SessionTicker`` ticks: a ``MachineWorker`` (a protocol so the ticker's bookkeeping is
/// tested on its own).
protocol SessionTicked: AnyObject, Sendable {
    /// One tick; false when no session is open any more (the ticker then drops it).
    func tick() async -> Bool
}

extension MachineWorker: SessionTicked {}

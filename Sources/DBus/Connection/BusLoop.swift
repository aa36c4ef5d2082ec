import CDBus
import Clocks
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The thread that owns one libdbus connection and makes every libdbus call on it.
///
/// libdbus stalls a caller while another thread blocks in its I/O, runs watch and timeout
/// callbacks with its lock held, and must be dispatched from one thread (docs/bluez.md "libdbus rules the binding keeps").
/// So this loop polls the connection's watches plus an eventfd, honours libdbus's timeouts,
/// runs jobs that other threads post, and dispatches until no data remains. All state marked
/// "loop thread" is touched only there, which is what makes the `@unchecked Sendable` true.
final class BusLoop: @unchecked Sendable {
    /// Loop thread.
    var connection: OpaquePointer?
    /// Loop thread: called for every incoming message; returns true when it handled it.
    var onMessage: ((OpaquePointer) -> Bool)?
    private var watches: [OpaquePointer] = []
    /// Loop thread: sockets read here besides the bus's own (AcquireNotify's), by descriptor.
    var datagramSockets: [Int32: DatagramSocket] = [:]
    private var timeoutDeadlines: [OpaquePointer: Int64] = [:]

    /// Jobs posted for the loop thread, and whether the loop has finished: a job posted after
    /// its last round runs on the poster's thread, so nobody who posts waits forever.
    private let jobs = Mutex<(pending: [@Sendable () -> Void], finished: Bool)>(([], false))
    private let stopRequested = Atomic<Bool>(false)
    private let wakeDescriptor: Int32

    init() throws {
        wakeDescriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wakeDescriptor >= 0 else {
            throw DBusError.connectFailed(address: "-", reason: "eventfd failed (errno \(errno))")
        }
    }

    deinit {
        close(wakeDescriptor)
    }

    /// Starts the thread; it keeps the loop alive until it stops.
    func start() throws {
        var thread = pthread_t()
        let retained = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            let loop = Unmanaged<BusLoop>.fromOpaque(argument).takeRetainedValue()
            loop.run()
            return nil
        }, retained)
        guard created == 0 else {
            Unmanaged<BusLoop>.fromOpaque(retained).release()
            throw DBusError.connectFailed(address: "-", reason: "cannot start the bus thread (error \(created))")
        }
        pthread_detach(thread)
    }

    /// Runs `job` on the loop thread, soon; once the loop has finished, at once on this thread
    /// (the connection is gone by then, and a job finds `connection` nil).
    func post(_ job: @escaping @Sendable () -> Void) {
        let queued = jobs.withLock { jobs in
            if !jobs.finished { jobs.pending.append(job) }
            return !jobs.finished
        }
        if queued { wake() } else { job() }
    }

    func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }

    /// Asks the loop to finish after the jobs already posted.
    func stop() {
        post { [self] in stopRequested.store(true, ordering: .releasing) }
    }

    // MARK: Loop thread

    private func run() {
        // Otherwise it inherits the name of whichever thread connected (an event loop's), and
        // `top -H` or a wake-up count shows it under the wrong name.
        _ = cdbus_name_thread("dbus-loop")
        while !stopRequested.load(ordering: .acquiring) {
            iterate()
        }
        // Jobs posted after the stop still run, so no caller waits forever; after the last
        // round, `post` runs them itself.
        while true {
            let pending = jobs.withLock { jobs in
                defer { jobs.pending.removeAll() }
                if jobs.pending.isEmpty { jobs.finished = true }
                return jobs.pending
            }
            if pending.isEmpty { break }
            for job in pending { job() }
        }
    }

    /// Runs the posted jobs. Loop thread.
    private func runJobs() {
        for job in jobs.withLock({ jobs in defer { jobs.pending.removeAll() }; return jobs.pending }) { job() }
    }

    private func iterate() {
        var descriptors = [pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        var polledWatches: [OpaquePointer] = []
        for watch in watches where dbus_watch_get_enabled(watch) != 0 {
            let flags = dbus_watch_get_flags(watch)
            var events: Int16 = 0
            if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
            if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
            descriptors.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0))
            polledWatches.append(watch)
        }
        let socketsFrom = descriptors.count
        let sockets = Array(datagramSockets.values)
        for socket in sockets {
            descriptors.append(pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0))
        }
        var wait: Int64 = -1
        let now = SystemClocks.monotonicMilliseconds()
        for (timeout, deadline) in timeoutDeadlines where dbus_timeout_get_enabled(timeout) != 0 {
            let remaining = max(0, deadline - now)
            wait = wait < 0 ? remaining : min(wait, remaining)
        }
        if let connection, dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS {
            wait = 0
        }
        let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(clamping: wait))
        if ready > 0 {
            for (index, watch) in polledWatches.enumerated() {
                let revents = descriptors[index + 1].revents
                // A handled watch may remove others: handle only those still registered.
                guard revents != 0, watches.contains(watch) else { continue }
                var flags: UInt32 = 0
                if revents & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
                if revents & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
                if revents & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
                if revents & Int16(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
                dbus_watch_handle(watch, flags)
            }
            for (index, socket) in sockets.enumerated() {
                let revents = descriptors[socketsFrom + index].revents
                // An earlier handler may have cancelled this one.
                guard revents != 0, datagramSockets[socket.descriptor] === socket else { continue }
                if !socket.readable(hangUp: revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0) {
                    datagramSockets[socket.descriptor] = nil
                }
            }
            if descriptors[0].revents != 0 {
                var counter: UInt64 = 0
                _ = read(wakeDescriptor, &counter, 8)
            }
        }
        let later = SystemClocks.monotonicMilliseconds()
        for timeout in Array(timeoutDeadlines.keys) {
            guard let deadline = timeoutDeadlines[timeout], deadline <= later,
                dbus_timeout_get_enabled(timeout) != 0
            else { continue }
            timeoutDeadlines[timeout] = later + Int64(dbus_timeout_get_interval(timeout))
            dbus_timeout_handle(timeout)
        }
        runJobs()
        if let connection {
            while dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {}
        }
    }

    /// Hands libdbus our watch, timeout, wakeup and filter callbacks. Loop thread, once.
    func attach(_ connection: OpaquePointer) {
        self.connection = connection
        let context = Unmanaged.passUnretained(self).toOpaque()
        dbus_connection_set_watch_functions(
            connection,
            { watch, context in
                guard let watch, let context else { return 0 }
                Unmanaged<BusLoop>.fromOpaque(context).takeUnretainedValue().watches.append(watch)
                return 1
            },
            { watch, context in
                guard let watch, let context else { return }
                Unmanaged<BusLoop>.fromOpaque(context).takeUnretainedValue().watches.removeAll { $0 == watch }
            },
            { _, _ in },  // enabled state is re-read on every iteration
            context, nil)
        dbus_connection_set_timeout_functions(
            connection,
            { timeout, context in
                guard let timeout, let context else { return 0 }
                let loop = Unmanaged<BusLoop>.fromOpaque(context).takeUnretainedValue()
                loop.timeoutDeadlines[timeout] = SystemClocks.monotonicMilliseconds() + Int64(dbus_timeout_get_interval(timeout))
                return 1
            },
            { timeout, context in
                guard let timeout, let context else { return }
                Unmanaged<BusLoop>.fromOpaque(context).takeUnretainedValue().timeoutDeadlines[timeout] = nil
            },
            { timeout, context in
                guard let timeout, let context else { return }
                let loop = Unmanaged<BusLoop>.fromOpaque(context).takeUnretainedValue()
                loop.timeoutDeadlines[timeout] = SystemClocks.monotonicMilliseconds() + Int64(dbus_timeout_get_interval(timeout))
            },
            context, nil)
        dbus_connection_set_wakeup_main_function(
            connection,
            { context in
                guard let context else { return }
                Unmanaged<BusLoop>.fromOpaque(context).takeUnretainedValue().wake()
            },
            context, nil)
        dbus_connection_add_filter(
            connection,
            { _, message, context in
                guard let message, let context else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
                let loop = Unmanaged<BusLoop>.fromOpaque(context).takeUnretainedValue()
                return loop.onMessage?(message) == true ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
            },
            context, nil)
    }

    /// Forgets the connection's callbacks before it is closed. Loop thread.
    func detach() {
        connection = nil
        for socket in datagramSockets.values { socket.close(reason: "the bus connection closed") }
        datagramSockets.removeAll()
        watches.removeAll()
        timeoutDeadlines.removeAll()
    }
}

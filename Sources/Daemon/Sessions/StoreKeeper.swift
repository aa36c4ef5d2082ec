package import Logging
import OwnThread
package import Store

/// Keeps the daemon's store on a sound, writable file without a restart (contract §6):
///
/// - while the store runs in memory (the state directory could not be written: a card gone
///   read-only), it tries every `tick` to write what memory holds to the file, and goes on with
///   the file from then on;
/// - while the file is in use, it checks the file as it is on disk
///   (``GatewayStore/checkOnDisk()``: a read-only connection of its own, `PRAGMA quick_check`)
///   every `checkEvery`, and at the next `tick` after a read or write met damage or an I/O
///   error; a damaged file is moved aside and a fresh one takes its place, with every row the
///   daemon can still read;
/// - a write refused because the file became read-only moves the store into memory, so what
///   the gym records from then on is uploaded from there.
///
/// `checkEvery` is sized so that damage is noticed within a minute on a Pi's SD card
/// (docs/sync.md has the check's cost); `tick` is the most a recovered disk waits.
package actor StoreKeeper {
    private let store: GatewayStore
    private let storeWatch: StoreWatch
    private let tick: Duration
    private let checkEvery: Duration
    private let timers: any Clock<Duration>
    private let logger: Logger
    /// Wakes the uploader: sessions carried into a fresh store, or memory written out.
    private let changed: @Sendable () async -> Void
    private var sinceCheck: Duration = .zero

    package init(
        store: GatewayStore, storeWatch: StoreWatch, tick: Duration = .seconds(5), checkEvery: Duration = .seconds(30),
        timers: any Clock<Duration>, logger: Logger, changed: @escaping @Sendable () async -> Void = {}
    ) {
        self.store = store
        self.storeWatch = storeWatch
        self.tick = tick
        self.checkEvery = checkEvery
        self.timers = timers
        self.logger = logger
        self.changed = changed
    }

    /// Rounds every `tick` until cancelled.
    package func run() async {
        while !Task.isCancelled {
            do {
                try await timers.sleep(for: tick)
            } catch {
                return
            }
            await round()
        }
    }

    /// One round: write memory out, or check the file when due. What the tests drive.
    package func round() async {
        sinceCheck += tick
        if let failure = store.health.fileIsReadOnly, !store.isInMemory {
            moveIntoMemory(failure)
        }
        if store.isInMemory {
            await writeMemoryOut()
            return
        }
        let trouble = store.takeTrouble()
        guard trouble || sinceCheck >= checkEvery else { return }
        sinceCheck = .zero
        await check()
    }

    /// The last try as the daemon stops: returns how many pending sessions only memory holds
    /// (lost with the process).
    package func lastTry() async -> Int {
        guard store.isInMemory else { return 0 }
        await writeMemoryOut()
        guard store.isInMemory else { return 0 }
        return (try? await store.counts().pending) ?? 0
    }

    private func moveIntoMemory(_ failure: WriteFailure) {
        do {
            try store.keepInMemory(because: failure)
            logger.critical(
                "state database went read-only (\(failure)): the store runs IN MEMORY from now on; sessions are kept and uploaded from memory, and written to the file as soon as it takes writes (tried every \(tick)); a stop before then loses what is not uploaded")
        } catch {
            logger.error("state database went read-only and could not be copied into memory (\(error)): finished sessions are held until it takes writes")
        }
    }

    private func writeMemoryOut() async {
        let store = store
        do {
            guard try await onOwnThread({ try store.writeMemoryToFile() }) else { return }
            let counts = try? await store.counts()
            logger.notice(
                "state database writable again: what the store kept in memory is written to \(store.path)\(counts.map { " (\($0.pending) pending, \($0.uploaded) uploaded)" } ?? ""); going on with the file")
            await changed()
        } catch {
            logger.error("state database: writing what memory holds to the file failed, tried again in \(tick): \(error)")
        }
    }

    private func check() async {
        let store = store
        let verdict = await onOwnThread { store.checkOnDisk() }
        guard case .damaged(let reason) = verdict else {
            if case .unreadable(let reason) = verdict { logger.warning("state database could not be checked on disk: \(reason)") }
            return
        }
        do {
            let moved = try await onOwnThread { try store.replaceDamagedFile(reason: reason) }
            let counts = try? await store.counts()
            logger.critical(
                "state database was DAMAGED under the running daemon (\(reason)): moved aside to \(moved.path), never deleted; going on with a fresh store without a restart, carrying what was still readable\(counts.map { " (\($0.pending) pending, \($0.uploaded) uploaded)" } ?? "") (device id kept, \(moved.keptLogin ? "login kept" : "login required")); run `ftms-bridge salvage` to queue what only the damaged file holds")
            await storeWatch.movedAside(moved)
            await changed()
        } catch {
            logger.critical("state database is DAMAGED (\(reason)) and could not be replaced while running (\(error)): restart the daemon, it moves the file aside at its start")
        }
    }
}

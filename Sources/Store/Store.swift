/// The gateway's durable state (contract §6): what must outlive a crash, a power cut and a
/// full or failing SD card, in one SQLite database in the state directory, through GRDB.
///
/// **What it keeps.** ``GatewayStore`` is the one entry point: the device id, the login's
/// tokens, the queue of finished sessions (`pending` → `uploaded`, or `dead` after the backend
/// refused one for good), open sessions' checkpoints, their plot series, the stats, the
/// trainings cache and the last upload's result. Each table is a GRDB Codable record whose
/// `CodingKeys` name the columns once; `StoreSchema` holds every migration, append-only.
///
/// **Its invariants.**
/// - *A finished session is never lost.* It is queued in the transaction that removes its
///   checkpoint (WAL, `synchronous=FULL`), so a crash keeps the one or the other, then
///   appended to ``SessionJournal``, a second file, before it counts as stored: a ride is never
///   in one file only. The store's open puts back what the journal has and the database lost.
///   One owner, ``FinishedSessionKeeper``, brings every finished session here, the daemon's
///   and `replay --queue`'s; it holds one the store refuses and writes it when the store takes
///   writes again (docs/architecture.md's row says where each part of the rule lives).
/// - *Never counted twice.* Queueing is idempotent by session id, and an upload's marks land in
///   one transaction after the backend's answer: delivery is at least once, and the ids make it
///   exactly once.
/// - *The gym's periodic writes cannot take a finished session's room.* Every write goes
///   through one place (`GatewayStore+Writing`), which classifies SQLite's failure, keeps the
///   store's health, and on a full disk gives back the ``StoreReserve`` (a ballast file) to the
///   writes that keep a session while refusing checkpoints and plot points.
/// - *A bad disk does not stop the gym.* A state directory that cannot be written runs the
///   store in memory and writes it back when it can; a file damaged under the daemon is moved
///   aside, never deleted, and replaced by a fresh one (`StoreBacking`: everything that holds
///   the store keeps the same object across these moves). `ftms-bridge salvage` reads what a
///   moved-aside file still holds, with SQLite if it opens and with ``PageScanner`` (SQLite's
///   file format read without SQLite) if it does not.
/// - *The device id survives the database.* Its copy is `device-id` (``DeviceIdentityFile``),
///   and a new one is derived from the machine id (``MachineAppID``), so a fresh store keeps
///   the gateway the backend knows.
///
/// **Who calls it.** The daemon (its session sink, uploader, clock and control socket) and
/// `ftms-bridge`'s commands (`replay --queue`, `queue`, `upload`, `login`, `salvage`) in other processes at the
/// same time: several processes may open the file, and wait up to ``GatewayStore/busyTimeout``
/// for each other's write locks. Every access runs on GRDB's serial queue, off the daemon's
/// event loop, so the store is a `Sendable` value every task shares. docs/sync.md is the
/// operator's side of all this.
enum StoreModule {}

import GRDB

/// The connection a ``GatewayStore`` uses now, and whether it is the file's.
///
/// Why a store can change its connection while the daemon runs: a state directory that cannot
/// be written (a card gone read-only) must not stop the gym, so the daemon keeps its store in
/// memory, with the same schema (seeded from the file when it can be read), and writes it to
/// the file once the file can be written; a file found damaged under the daemon is moved aside
/// and a fresh one takes its place. Everything that holds the store (the uploader, the control
/// socket, the finished-session keeper) keeps the same object across these moves.
struct StoreBacking: Sendable {
    var queue: DatabaseQueue
    /// Bumped at each replacement: an access that waited on the old connection sees it changed
    /// and runs again on the new one.
    var generation: Int
    /// Why the store is in memory; nil while the file is in use.
    var inMemory: WriteFailure?
}

/// The old connection was replaced while an access waited for it.
struct ConnectionReplaced: Error {}

extension GatewayStore {
    var current: StoreBacking { backing.withLock { $0 } }

    /// The connection in use now (tests reach SQLite through it).
    var database: DatabaseQueue { current.queue }

    /// Runs `body` in a read or write access on the current connection. An access queued on a
    /// connection that was replaced meanwhile runs again on the new one, so nothing is written
    /// to a connection the store has left: replacements happen inside an exclusive access of
    /// the old connection (``replaceConnection(_:inMemory:during:)``).
    func onCurrent<T: Sendable>(write: Bool, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        while true {
            let backing = current
            let guarded: @Sendable (Database) throws -> T = { db in
                guard self.current.generation == backing.generation else { throw ConnectionReplaced() }
                return try body(db)
            }
            do {
                if write { return try await backing.queue.write(guarded) }
                return try await backing.queue.read(guarded)
            } catch is ConnectionReplaced {
                continue
            } catch {
                // A connection closed under the access: the new one answers.
                if current.generation != backing.generation { continue }
                throw error
            }
        }
    }

    /// Replaces the connection by the one `make` returns, which runs inside an exclusive access
    /// of the old connection (given to it), so no write lands on the old one after `make` read
    /// it. Returns the old connection, for the caller to close.
    @discardableResult
    func replaceConnection(inMemory: WriteFailure?, _ make: (Database) throws -> DatabaseQueue) throws -> DatabaseQueue {
        let old = current
        try old.queue.writeWithoutTransaction { db in
            let queue = try make(db)
            backing.withLock { $0 = StoreBacking(queue: queue, generation: $0.generation + 1, inMemory: inMemory) }
        }
        setInMemory(inMemory)
        return old.queue
    }

    /// An empty database in memory; the caller gives it the schema (a backup of the file, or
    /// the migrations).
    static func memoryQueue() throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = "ftms-bridge.store.memory"
        return try DatabaseQueue(configuration: configuration)
    }
}

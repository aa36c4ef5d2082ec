/// Where open sessions are checkpointed: one per machine, keyed by its address.
///
/// The SQLite store implements this for the daemon; ``InMemoryCheckpointStore`` is the test
/// double. Asynchronous because a real store is an actor doing I/O.
public protocol SessionCheckpointStore: Sendable {
    /// Saves or replaces the machine's checkpoint.
    func save(_ snapshot: SessionSnapshot) async throws
    func load(machineAddress: String) async throws -> SessionSnapshot?
    /// Every checkpoint, for restoring all machines at start-up (a machine that never comes
    /// back still has its session closed).
    func loadAll() async throws -> [SessionSnapshot]
    /// Removes the machine's checkpoint if it still holds `sessionID`: a late remove for a
    /// finished session must not delete the checkpoint of the session that followed it.
    func remove(machineAddress: String, sessionID: String) async throws
}

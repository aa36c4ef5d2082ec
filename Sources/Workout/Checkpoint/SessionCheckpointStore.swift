/// Where open sessions are checkpointed: one per session, so that a machine's next session
/// never takes the place of one not yet stored (a finished session a full disk refused).
///
/// The SQLite store implements this for the daemon; ``InMemoryCheckpointStore`` is the test
/// double. Asynchronous because a real store is an actor doing I/O.
public protocol SessionCheckpointStore: Sendable {
    /// Saves or replaces the session's checkpoint.
    func save(_ snapshot: SessionSnapshot) async throws
    /// The machine's newest checkpoint.
    func load(machineAddress: String) async throws -> SessionSnapshot?
    /// Every checkpoint, for restoring all machines at start-up (a machine that never comes
    /// back still has its session closed), oldest first within a machine.
    func loadAll() async throws -> [SessionSnapshot]
    /// Removes the checkpoint of `sessionID` on the machine: the session was stored or dropped.
    func remove(machineAddress: String, sessionID: String) async throws
}

/// Checkpoints in a dictionary: the test double of ``SessionCheckpointStore``, and a store
/// for runs that keep nothing (replay without `--queue`). One per session, as the SQLite store.
public actor InMemoryCheckpointStore: SessionCheckpointStore {
    private var snapshots: [String: SessionSnapshot] = [:]

    public init() {}

    public func save(_ snapshot: SessionSnapshot) {
        snapshots[snapshot.sessionID] = snapshot
    }

    public func load(machineAddress: String) -> SessionSnapshot? {
        loadAll().last { $0.machine.address == machineAddress }
    }

    public func loadAll() -> [SessionSnapshot] {
        snapshots.values.sorted {
            ($0.machine.address, $0.savedAt.millisecondsSince1970, $0.sessionID) < ($1.machine.address, $1.savedAt.millisecondsSince1970, $1.sessionID)
        }
    }

    public func remove(machineAddress: String, sessionID: String) {
        if snapshots[sessionID]?.machine.address == machineAddress { snapshots[sessionID] = nil }
    }
}

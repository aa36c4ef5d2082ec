/// Checkpoints in a dictionary: the test double of ``SessionCheckpointStore``, and a store
/// for runs that keep nothing (replay without `--queue`).
public actor InMemoryCheckpointStore: SessionCheckpointStore {
    private var snapshots: [String: SessionSnapshot] = [:]

    public init() {}

    public func save(_ snapshot: SessionSnapshot) {
        snapshots[snapshot.machine.address] = snapshot
    }

    public func load(machineAddress: String) -> SessionSnapshot? {
        snapshots[machineAddress]
    }

    public func loadAll() -> [SessionSnapshot] {
        snapshots.values.sorted { $0.machine.address < $1.machine.address }
    }

    public func remove(machineAddress: String, sessionID: String) {
        if snapshots[machineAddress]?.sessionID == sessionID { snapshots[machineAddress] = nil }
    }
}

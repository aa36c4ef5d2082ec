/// Counts of what a btsnoop read passed over, so a replay that yields nothing can say why.
public struct BtsnoopStatistics: Sendable, Equatable {
    public var records = 0
    /// ATT PDUs seen on the fixed ATT channel (CID 0x0004).
    public var attributePDUs = 0
    /// ACL packets whose header disagrees with the record (cut short by the snapshot length).
    public var malformedPackets = 0
    /// ACL fragments that could not be placed into an L2CAP PDU.
    public var droppedFragments = 0
    /// Value events skipped because neither discovery nor the handle map names their handle.
    public var unmappedEvents = 0
    /// Those handles: what a `--handle-map` needs to cover.
    public var unmappedHandles: Set<UInt16> = []
    /// The capturing tool's own count of packets it lost (the last record's cumulative drops).
    public var packetsLostByRecorder = 0
}

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
    /// Notifications and indications read on the fixed ATT channel, by attribute handle.
    public var notificationsPerHandle: [UInt16: Int] = [:]
    /// Enhanced ATT (EATT, SPSM 0x0027) channels the links asked for. Two hosts that both
    /// run BlueZ 5.66 open them by default and send notifications over them; this reader
    /// decodes only the fixed channel, which is what fitness machines speak.
    public var eattChannelsRequested = 0
    /// L2CAP PDUs on dynamic (credit-based) channels: EATT's and any other's, not decoded.
    public var dynamicChannelPDUs = 0

    /// What the capture held, in one line, for a replay that found no FTMS traffic.
    public var summary: String {
        var parts = ["\(records) records", "\(attributePDUs) ATT PDUs on the fixed channel"]
        let handles = notificationsPerHandle.keys.sorted()
        parts.append(handles.isEmpty ? "no notifications"
            : "notifications by handle " + handles.map { "0x" + hex4($0) + ": \(notificationsPerHandle[$0] ?? 0)" }.joined(separator: ", "))
        if eattChannelsRequested > 0 || dynamicChannelPDUs > 0 {
            parts.append("\(eattChannelsRequested) EATT channels requested and \(dynamicChannelPDUs) PDUs on dynamic channels, not decoded (EATT)")
        }
        if !unmappedHandles.isEmpty { parts.append("unmapped handles " + unmappedHandles.sorted().map { "0x" + hex4($0) }.joined(separator: ", ")) }
        if malformedPackets > 0 { parts.append("\(malformedPackets) malformed packets") }
        if packetsLostByRecorder > 0 { parts.append("\(packetsLostByRecorder) packets lost by the recorder") }
        return parts.joined(separator: "; ")
    }

    private func hex4(_ value: UInt16) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

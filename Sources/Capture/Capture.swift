/// Recorded BLE traffic in, time-stamped attribute events out (contract §8).
///
/// Two formats feed replay: btsnoop files, as `btmon -w` (datalink 2001) and Android's HCI
/// snoop log (1002, HCI UART framing) write them, plus un-encapsulated HCI logs (1001); and `.ftmscap`, our own JSON lines
/// (`docs/ftmscap.md`), which `monitor --record` writes and people hand-edit.
///
/// The btsnoop reader is written by hand: no maintained Swift library reads btsnoop, HCI,
/// L2CAP or ATT, and the C ones (BlueZ's `monitor/`, Wireshark) are GPL programs, not libraries.
/// It needs only a small slice of those stacks anyway: ACL fragments to L2CAP PDUs to ATT.
///
/// Both readers pull one event at a time from bytes already in memory, so replaying a capture
/// never builds an array of its events, and an event's value lives inline
/// (``AttributeValue``), so reading allocates nothing per event. File I/O stays at the edge,
/// in ``CaptureFile``. Damage ends a read with a one-line ``CaptureError`` naming the byte
/// offset or line; every event before it has already been delivered. No input traps.
public enum CaptureFormat: String, Sendable, CaseIterable {
    case btsnoop
    case ftmscap

    /// btsnoop files start with a magic string; everything else is taken for JSON lines.
    public init(detecting bytes: [UInt8]) {
        self = bytes.starts(with: BtsnoopFileHeader.magic) ? .btsnoop : .ftmscap
    }
}

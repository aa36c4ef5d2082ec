/// One exported characteristic's state. Owned by the simulator actor.
final class CharacteristicState {
    let path: String
    let uuid: UInt16
    let flags: [String]
    let descriptorPaths: [String]
    /// What a read returns (a notify characteristic's last notified value).
    var value: [UInt8]
    /// Notify sessions by client: true once registered with the connected device, false while
    /// the link is down (BlueZ keeps them and registers them again on reconnect).
    var sessions: [String: Bool] = [:]
    /// Every value written, oldest first, refused ones included.
    var writes: [[UInt8]] = []
    var writePending = false
    /// The simulator's end of an AcquireNotify socketpair, while one is acquired.
    var acquired: AcquiredNotify?

    init(path: String, uuid: UInt16, flags: [String], value: [UInt8], descriptorPaths: [String]) {
        self.path = path
        self.uuid = uuid
        self.flags = flags
        self.value = value
        self.descriptorPaths = descriptorPaths
    }

    var canNotify: Bool { flags.contains("notify") || flags.contains("indicate") }
    var hasActiveSession: Bool { acquired != nil || sessions.values.contains(true) }
}

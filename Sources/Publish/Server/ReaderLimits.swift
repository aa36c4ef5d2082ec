/// How far behind one reader may fall, in bytes written to it and not yet taken by the kernel.
///
/// Past `soft` the reader loses `sample` messages (it sees a `seq` gap) but keeps every other
/// type; past `hard` with a message it cannot lose, it is disconnected. The gap between the two
/// is room for the rare state changes of a reader that is behind only briefly. The defaults
/// hold about 200 samples before dropping, on top of the kernel's own socket buffer, and cap a
/// reader that stopped reading at 256 KiB: 200 stuck readers cost 50 MiB at most.
///
/// `readers` caps how many are connected at once (`metrics_socket.max_clients`): a reader past
/// it is told so in an `error` line and closed, so a client that reconnects in a loop without
/// closing cannot take the daemon's descriptors and memory.
public struct ReaderLimits: Sendable, Equatable {
    public var soft: Int
    public var hard: Int
    public var readers: Int

    public init(soft: Int = 64 * 1024, hard: Int = 256 * 1024, readers: Int = 64) {
        self.soft = max(soft, 1)
        self.hard = max(hard, self.soft)
        self.readers = max(readers, 1)
    }
}

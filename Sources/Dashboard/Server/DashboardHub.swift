public import Clocks
public import NIOCore
public import Publish

/// The dashboard's live state and its open browsers.
///
/// Sources call ``apply(_:)``; each change is encoded once and offered to every browser's
/// ``ClientMailbox``, which never waits, so the hub's cost per event does not depend on how
/// fast any browser reads. A browser subscribes with ``connect()`` and gets, atomically with
/// its registration, the snapshot its stream starts from: nothing applied after the snapshot
/// is missed and nothing before it is sent twice.
public actor DashboardHub {
    private var floor = FloorState()
    private var clients: [Int: ClientMailbox] = [:]
    private var nextClient = 0
    private let limits: ReaderLimits
    private let clock: WallClock

    /// `clock` is the dashboard's (injected for tests).
    public init(limits: ReaderLimits = ReaderLimits(), clock: WallClock) {
        self.limits = limits
        self.clock = clock
    }

    private func now() -> Double { clock.now().unixSeconds }

    public var clientCount: Int { clients.count }
    public var state: FloorState { floor }

    public func apply(_ event: GatewayEvent) {
        for change in floor.apply(event, now: now()) {
            let frame: ByteBuffer
            var live = false
            switch change {
            case .tile(let tile, let point, let isLive):
                frame = EventFrame.make(event: "tile", TileUpdate(tile: tile.withoutSpark, point: point))
                live = isLive
            case .gateway(let gateway):
                frame = EventFrame.make(event: "gateway", gateway)
            case .reset:
                frame = snapshotFrame()
            }
            for client in clients.values { client.offer(frame, live: live) }
        }
    }

    /// Registers a browser: its id (for ``disconnect(_:)``), its mailbox, and the `hello`
    /// frame to send first.
    public func connect() -> (id: Int, mailbox: ClientMailbox, hello: ByteBuffer) {
        nextClient += 1
        let mailbox = ClientMailbox(limits: limits)
        clients[nextClient] = mailbox
        return (nextClient, mailbox, snapshotFrame())
    }

    public func disconnect(_ id: Int) {
        clients.removeValue(forKey: id)?.close()
    }

    public func snapshot() -> FloorSnapshot {
        floor.snapshot(now: now())
    }

    public func snapshotFrame() -> ByteBuffer {
        EventFrame.make(event: "hello", snapshot())
    }

    /// Offers every browser a heartbeat comment (not live: it must get through to find a dead peer).
    public func heartbeat() {
        for client in clients.values { client.offer(EventFrame.heartbeat, live: false) }
    }

    /// Closes every browser's stream (on shutdown).
    public func closeAll() {
        for client in clients.values { client.close() }
        clients.removeAll()
    }
}

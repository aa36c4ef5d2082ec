public import FoundationEssentials
public import Store

/// The gateway's side of the SolidFocus account (contract §6), composed once: the store, the
/// backend client, the token authority shared by every call, and the batch upload
/// procedure. The CLI builds one per command; the daemon one for its lifetime.
public struct SyncService: Sendable {
    public let store: GatewayStore
    public let client: BackendClient
    public let authority: TokenAuthority
    public let clock: WallClock
    public var uploader: BatchUploadProcedure

    public init(store: GatewayStore, client: BackendClient, timeZone: TimeZone, clock: WallClock = .system) {
        self.store = store
        self.client = client
        self.clock = clock
        authority = TokenAuthority(store: store, client: client, clock: clock)
        uploader = BatchUploadProcedure(store: store, client: client, authority: authority, timeZone: timeZone)
    }
}

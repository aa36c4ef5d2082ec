package import Clocks
package import FoundationEssentials
package import Store

/// The gateway's side of the SolidFocus account (contract §6), composed once: the store, the
/// backend client, the token authority shared by every call, and the batch upload
/// procedure. The CLI builds one per command; the daemon one for its lifetime.
package struct SyncService: Sendable {
    package let store: GatewayStore
    package let client: BackendClient
    package let authority: TokenAuthority
    package let clock: WallClock
    package var uploader: BatchUploadProcedure

    package init(store: GatewayStore, client: BackendClient, timeZone: TimeZone, clock: WallClock = .system) {
        self.store = store
        self.client = client
        self.clock = clock
        authority = TokenAuthority(store: store, client: client, clock: clock)
        uploader = BatchUploadProcedure(store: store, client: client, authority: authority, timeZone: timeZone)
    }
}

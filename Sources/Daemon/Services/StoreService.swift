import ServiceLifecycle

/// Runs the ``StoreKeeper``'s rounds (memory written out, the file checked on disk) until
/// shutdown.
struct StoreService: Service {
    let keeper: StoreKeeper

    func run() async throws {
        let keeper = keeper
        await cancelWhenGracefulShutdown {
            await keeper.run()
        }
    }
}

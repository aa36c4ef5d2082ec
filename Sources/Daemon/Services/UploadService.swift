public import ServiceLifecycle
public import Upload

/// The uploader as a service (SolidFocus Flow 1 step 4, in the background): its first run
/// uploads what is pending at start-up, then it waits for finished sessions and its timer.
/// A shutdown cancels it between HTTP calls; what was not acknowledged stays pending.
public struct UploadService: Service {
    public let scheduler: UploadScheduler
    /// Runs beside the first upload: the trainings refresh (Flow 1 step 4.2).
    public let alongside: @Sendable () async -> Void

    public init(scheduler: UploadScheduler, alongside: @escaping @Sendable () async -> Void = {}) {
        self.scheduler = scheduler
        self.alongside = alongside
    }

    public func run() async throws {
        let scheduler = scheduler
        let alongside = alongside
        await cancelWhenGracefulShutdown {
            async let side: Void = alongside()
            await scheduler.run()
            await side
        }
    }
}

import ServiceLifecycle
package import Upload

/// The uploader as a service (SolidFocus Flow 1 step 4, in the background): its first run
/// uploads what is pending at start-up, then it waits for finished sessions and its timer.
/// A shutdown cancels it between HTTP calls; what was not acknowledged stays pending.
package struct UploadService: Service {
    package let scheduler: UploadScheduler
    /// Runs beside the first upload: the trainings refresh (Flow 1 step 4.2).
    package let alongside: @Sendable () async -> Void

    package init(scheduler: UploadScheduler, alongside: @escaping @Sendable () async -> Void = {}) {
        self.scheduler = scheduler
        self.alongside = alongside
    }

    package func run() async throws {
        let scheduler = scheduler
        let alongside = alongside
        await cancelWhenGracefulShutdown {
            async let side: Void = alongside()
            await scheduler.run()
            await side
        }
    }
}

import Logging
import ServiceLifecycle
import Upload

/// The uploader as a service (SolidFocus Flow 1 step 4, in the background): its first run
/// uploads what is pending at start-up, beside the trainings refresh (step 4.2), then it waits
/// for finished sessions and its timer. A shutdown cancels it between HTTP calls; what was not
/// acknowledged stays pending.
struct UploadService: Service {
    let scheduler: UploadScheduler
    let sync: SyncService
    /// Seconds the cached trainings are kept before the refresh asks the backend again.
    let trainingsTTL: Int
    let logger: Logger

    func run() async throws {
        let scheduler = scheduler
        await cancelWhenGracefulShutdown {
            async let trainings: Void = refreshTrainings()
            await scheduler.run()
            await trainings
        }
    }

    private func refreshTrainings() async {
        do {
            let result = try await sync.trainings(ttl: trainingsTTL)
            if let error = result.error {
                logger.warning("trainings not refreshed (the cached list is kept): \(error)")
            } else if result.refreshed {
                logger.info("trainings refreshed")
            }
        } catch {
            logger.info("trainings not refreshed: \(error)")
        }
    }
}

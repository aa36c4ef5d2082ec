import ServiceLifecycle

/// The floor as a service (`[fleet]` on): the coordinator runs until the daemon stops. Listed
/// after the machines' service, so it stops first: with `handover_on_stop`, every held machine
/// is handed to the floor while the fleet still holds it, before the fleet's own stop.
struct FloorService: Service {
    let coordinator: FloorCoordinator
    let handoverOnStop: Bool

    func run() async throws {
        let coordinator = coordinator
        let running = Task { await coordinator.run() }
        let handoverOnStop = handoverOnStop
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await running.value
            } onGracefulShutdown: {
                Task {
                    if handoverOnStop { _ = await coordinator.handover([]) }
                    running.cancel()
                }
            }
        } onCancel: {
            running.cancel()
        }
    }
}

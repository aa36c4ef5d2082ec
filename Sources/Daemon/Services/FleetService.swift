import ServiceLifecycle

/// The Bluetooth side as a service. Start-up follows SolidFocus Flow 1: the token check runs
/// first, then machines are found and connected. A shutdown cancels the fleet, which
/// disconnects every machine and checkpoints open sessions; the trainings it was running stop
/// with it.
struct FleetService: Service {
    let fleet: MachineFleet
    let trainings: TrainingRunner
    /// `nil` with no backend configured.
    let tokens: StartupTokenCheck?

    func run() async throws {
        let fleet = fleet
        let tokens = tokens
        await cancelWhenGracefulShutdown {
            await tokens?.run()
            await fleet.run()
        }
        await trainings.stopAll()
    }
}

public import ServiceLifecycle

/// The Bluetooth side as a service. Start-up follows SolidFocus Flow 1: `beforeMachines`
/// (the token check) runs first, then machines are found and connected. A shutdown cancels
/// the fleet, which disconnects every machine and checkpoints open sessions.
public struct FleetService: Service {
    public let fleet: MachineFleet
    public let beforeMachines: @Sendable () async -> Void

    public init(fleet: MachineFleet, beforeMachines: @escaping @Sendable () async -> Void = {}) {
        self.fleet = fleet
        self.beforeMachines = beforeMachines
    }

    public func run() async throws {
        let fleet = fleet
        let beforeMachines = beforeMachines
        await cancelWhenGracefulShutdown {
            await beforeMachines()
            await fleet.run()
        }
    }
}

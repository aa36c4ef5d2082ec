import ServiceLifecycle

/// The Bluetooth side as a service. Start-up follows SolidFocus Flow 1: `beforeMachines`
/// (the token check) runs first, then machines are found and connected. A shutdown cancels
/// the fleet, which disconnects every machine and checkpoints open sessions.
package struct FleetService: Service {
    package let fleet: MachineFleet
    package let beforeMachines: @Sendable () async -> Void

    package init(fleet: MachineFleet, beforeMachines: @escaping @Sendable () async -> Void = {}) {
        self.fleet = fleet
        self.beforeMachines = beforeMachines
    }

    package func run() async throws {
        let fleet = fleet
        let beforeMachines = beforeMachines
        await cancelWhenGracefulShutdown {
            await beforeMachines()
            await fleet.run()
        }
    }
}

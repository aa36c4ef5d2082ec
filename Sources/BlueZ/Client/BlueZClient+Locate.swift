import DBus

extension BlueZClient {
    /// Finds `target`: at once when BlueZ still knows it (a machine seen before reconnects
    /// without a scan), else by discovering until it appears or `timeout` passes.
    ///
    /// A device that matches the target's name but fails `filter` (no 0xFE01) is never taken.
    package func locate(_ target: MachineTarget, filter: MachineFilter, timeout: Duration) async throws -> DiscoveredMachine {
        if let known = tree.machines(passing: filter).first(where: target.matches) { return known }
        guard !adapters(allowedBy: filter).isEmpty else { throw BlueZError.noAdapter }
        do {
            try await acquireDiscovery(filter: filter)
        } catch {
            await releaseDiscovery()
            throw error
        }
        _ = await wait(until: { $0.machines(passing: filter).contains(where: target.matches) }, timeout: timeout)
        await releaseDiscovery()
        try Task.checkCancellation()
        guard let found = tree.machines(passing: filter).first(where: target.matches) else {
            throw BlueZError.machineNotFound(target.description)
        }
        return found
    }

    /// Starts discovery on every adapter `filter` allows unless another caller already holds it on. Every
    /// acquire needs one ``releaseDiscovery()``: the daemon's search for new machines and
    /// each supervisor's `locate` share one session this way.
    package func acquireDiscovery(filter: MachineFilter) async throws {
        discoveryHolders += 1
        guard discoveryHolders == 1 else { return }
        var started: [String] = []
        for adapter in adapters(allowedBy: filter) where try await startDiscovery(on: adapter, filter: filter) {
            started.append(adapter)
        }
        discoveringAdapters = started
        // Everyone gave up while the adapters were starting: stop what was started.
        if discoveryHolders == 0 { await stopDiscovery() }
    }

    package func releaseDiscovery() async {
        guard discoveryHolders > 0 else { return }
        discoveryHolders -= 1
        if discoveryHolders == 0 { await stopDiscovery() }
    }

    private func stopDiscovery() async {
        let adapters = discoveringAdapters
        discoveringAdapters = []
        for adapter in adapters {
            _ = try? await connection.call(
                destination: BlueZNames.service, path: adapter, interface: BlueZNames.adapter,
                member: "StopDiscovery", timeout: .seconds(5))
        }
    }
}

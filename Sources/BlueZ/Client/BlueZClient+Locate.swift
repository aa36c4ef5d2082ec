import DBus

extension BlueZClient {
    /// Finds `target`: at once when BlueZ still knows it (a machine seen before reconnects
    /// without a scan), else by discovering until it appears or `timeout` passes.
    ///
    /// A device that matches the target's name but fails `filter` (no 0xFE01) is never taken.
    package func locate(_ target: MachineTarget, filter: MachineFilter, timeout: Duration) async throws -> DiscoveredMachine {
        if let known = tree.reachable(target, passing: filter).first { return known }
        guard !adapters(allowedBy: filter).isEmpty else { throw BlueZError.noAdapter }
        do {
            try await acquireDiscovery(filter: filter)
        } catch {
            await releaseDiscovery()
            throw error
        }
        _ = await wait(until: { !$0.reachable(target, passing: filter).isEmpty }, timeout: timeout)
        await releaseDiscovery()
        try Task.checkCancellation()
        guard let found = tree.reachable(target, passing: filter).first else {
            throw BlueZError.machineNotFound(target.description)
        }
        return found
    }

    /// Holds discovery on every adapter `filter` allows. Every acquire needs one
    /// ``releaseDiscovery()``: the daemon's search for new machines and each supervisor's
    /// `locate` share one session per adapter this way, started by whichever holder finds an
    /// adapter without one (see ``holdDiscovery(filter:restarting:)``).
    package func acquireDiscovery(filter: MachineFilter) async throws {
        discoveryHolders += 1
        try await holdDiscovery(filter: filter)
    }

    /// While anyone holds discovery: starts it on each allowed, powered adapter this client has
    /// not started it on (one added or powered on since, or every one after bluetoothd
    /// restarted, which forgets them), and stops and starts it again on `restarting`.
    ///
    /// Any holder does this, not only the first: after a bluetoothd restart the fleet and
    /// every supervisor looking for its machine hold discovery while the adapters come back
    /// one by one, and a session started only by the first holder would leave the adapters
    /// that came later silent until every holder let go (the VM: 103 s).
    package func holdDiscovery(filter: MachineFilter, restarting: Set<String> = []) async throws {
        guard discoveryHolders > 0 else { return }
        let powered = Set(adapters(allowedBy: filter).filter(tree.isPowered))
        // Power off ends bluetoothd's sessions on an adapter; a vanished one has none.
        discoveringAdapters.formIntersection(powered)
        for adapter in restarting.intersection(discoveringAdapters).sorted() {
            discoveringAdapters.remove(adapter)
            await stopDiscovery(on: adapter)
        }
        for adapter in powered.subtracting(discoveringAdapters).subtracting(startingAdapters).sorted() {
            startingAdapters.insert(adapter)
            defer { startingAdapters.remove(adapter) }
            if try await startDiscovery(on: adapter, filter: filter) { discoveringAdapters.insert(adapter) }
        }
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
        for adapter in adapters.sorted() { await stopDiscovery(on: adapter) }
    }

    private func stopDiscovery(on adapter: String) async {
        _ = try? await connection.call(
            destination: BlueZNames.service, path: adapter, interface: BlueZNames.adapter,
            member: "StopDiscovery", timeout: .seconds(5))
    }
}

package import BlueZ

/// The fleet's side of the floor (``FloorHooks``, `[fleet]` on): the coordinator takes and
/// releases machines here, learns what the adapters hear and hold, and carries on sessions
/// another gateway mirrored. None of it runs with the floor off.
extension MachineFleet {
    /// Starts supervising `machine` (its address known), whatever the allow list says: the
    /// floor placed it here and has published its claim. False when the fleet has no bus
    /// connection or no free link; true when it supervises the machine already.
    package func take(_ machine: MachineTarget) -> Bool {
        guard let address = machine.address, let client else { return false }
        let key = address.uppercased()
        if supervised[key] != nil { return true }
        guard supervised.count < settings.maxConnected else { return false }
        logger.info("taking \(machine): the floor placed it here")
        startSupervisor(key: key, target: machine, client: client)
        fleetChange.raise()?.resume()
        return true
    }

    /// Stops supervising `machine` (a name or an address) and disconnects it in the normal exit
    /// order: its open session stays, disconnected, as a checkpoint that a reconnect within the
    /// grace would carry on (and that the floor may mark handed over). False when the fleet does
    /// not supervise it.
    @discardableResult
    package func release(_ machine: String, reason: String) async -> Bool {
        guard let key = await supervisedKey(for: machine), let entry = supervised.removeValue(forKey: key) else { return false }
        releasing[key] = reason
        logger.notice("releasing \(machine): \(reason)")
        entry.run.cancel()
        await entry.run.value
        await entry.route.value
        fleetChange.raise()?.resume()
        return true
    }

    /// Machines the adapters hear now, with their best RSSI (empty with no bus connection).
    package func sightings() async -> [MachineSighting] {
        guard let client else { return [] }
        return MachineSighting.all(in: await client.tree, filter: settings.filter)
    }

    /// Addresses of the machines the fleet supervises (linked or connecting), upper-cased.
    package func heldMachines() async -> [String] {
        var held: [String] = []
        for (key, entry) in supervised { held.append(await entry.supervisor.target.address?.uppercased() ?? key) }
        return held.sorted()
    }

    /// Links the fleet could still open (`max_connected` less the machines it supervises).
    package var freeSlots: Int { max(0, settings.maxConnected - supervised.count) }

    /// With the floor on: asks it about each machine heard that the fleet does not supervise.
    func offerHeard(_ client: BlueZClient, floor: any FloorHooks) async {
        for sighting in MachineSighting.all(in: await client.tree, filter: settings.filter) {
            guard supervised[sighting.address] == nil, supervised.count < settings.maxConnected else { continue }
            guard await floor.mayConnect(sighting.target), supervised[sighting.address] == nil, self.client != nil else { continue }
            logger.info("found \(sighting.name) (\(sighting.address)); the floor placed it here")
            startSupervisor(key: sighting.address, target: sighting.target, client: client)
        }
    }

    private func supervisedKey(for machine: String) async -> String? {
        let wanted = machine.uppercased()
        for (key, entry) in supervised {
            let target = await entry.supervisor.target
            if key == wanted || target.name?.uppercased() == wanted || target.address?.uppercased() == wanted { return key }
        }
        return nil
    }
}

package import BlueZ
package import Workout

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

    /// Before taking `machine`: carries on the session another gateway mirrored (`snapshot`,
    /// which arrived at `arrival` on this gateway's monotonic clock) as this machine's worker,
    /// the same session id, the time without a holder an outage; or, with `splitFrom`, says the
    /// next session on it continues a ride whose checkpoint never reached the broker. False
    /// when the fleet already has a session open on the machine (it keeps its own).
    package func prepare(_ machine: String, adopting snapshot: SessionSnapshot?, arrivedAt arrival: Duration, splitFrom: String?) async -> Bool {
        let key = machine.uppercased()
        if let worker = workers[key] {
            if await worker.openSessionID != nil { return false }
            if snapshot == nil, let splitFrom { await worker.splitting(from: splitFrom) }
            if snapshot == nil { return true }
        }
        guard let snapshot else {
            if let splitFrom {
                let worker = MachineWorker(
                    name: machine, address: machine, sink: sink, clock: clock, rules: rules, ticker: ticker, eventLoop: eventLoop, metrics: metrics)
                await worker.splitting(from: splitFrom)
                workers[key] = worker
            }
            return true
        }
        let worker = MachineWorker(
            adopting: snapshot, arrivedAt: arrival, sink: sink, clock: clock, rules: rules, ticker: ticker, eventLoop: eventLoop, metrics: metrics)
        workers[key] = worker
        logger.info("session \(snapshot.sessionID) on \(snapshot.machine.name) carried on from another gateway's checkpoint")
        await worker.start()
        return true
    }

    /// The session open on `machine` (else its next one) continues in part `sessionID`, a ride
    /// of another gateway that reached no broker (that gateway, back, said so): it says it split.
    package func splitting(_ machine: String, from sessionID: String) async {
        if let worker = workers[machine.uppercased()] {
            await worker.splitting(from: sessionID)
        } else {
            _ = await prepare(machine, adopting: nil, arrivedAt: .zero, splitFrom: sessionID)
        }
    }

    /// An open session of `machine`'s worker as it stands now, for a fresh mirrored checkpoint.
    package func snapshot(of machine: String) async -> SessionSnapshot? {
        await workers[machine.uppercased()]?.snapshotNow()
    }

    /// Another gateway carries on `sessionID`, which this fleet's worker for `machine` still
    /// holds disconnected (handed over, or this gateway died and came back): the worker lets it
    /// go without ending it, and the keeper marks it handed over, never uploaded from here.
    /// False when the worker has another session (or none), or the store refused the mark.
    package func giveUp(_ machine: String, sessionID: String, to gateway: String) async -> Bool {
        let key = machine.uppercased()
        guard supervised[key] == nil, let worker = workers[key], await worker.openSessionID == sessionID else { return false }
        guard let identity = await worker.letGo() else { return false }
        do {
            try await sink.keeper.handOver(sessionID: sessionID, machine: identity, to: gateway)
        } catch {
            logger.warning("session \(sessionID) is carried on by \(gateway), but the store did not take the mark: \(error)")
            return false
        }
        workers[key] = nil
        return true
    }

    /// A checkpoint from before this start whose session another gateway carried on: marked
    /// handed over in the store, never restored or uploaded here.
    package func handedOver(_ snapshot: SessionSnapshot, to gateway: String) async -> Bool {
        do {
            try await sink.keeper.handOver(sessionID: snapshot.sessionID, machine: snapshot.machine, to: gateway)
            return true
        } catch {
            logger.warning("session \(snapshot.sessionID) is carried on by \(gateway), but the store did not take the mark (\(error)): restored here")
            return false
        }
    }
}

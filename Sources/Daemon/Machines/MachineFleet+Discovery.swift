import BlueZ
import Clocks
import DBus

/// How the fleet looks for machines: driven by events, not by timers.
///
/// Discovery stays on while the fleet has room for a machine it has not found or a machine
/// it waits to reconnect, so a machine is heard on its first advertisement: a new one is
/// adopted at once, and one that wakes (switched on, or woken by a rider after sleeping)
/// has its supervisor's reconnect backoff cut short. It is off while a Connect to a machine
/// just heard is in flight, as bluetoothd pauses scanning then anyway (a retry on a machine
/// that stayed silent leaves it on: see ``MachineLinkState/connecting``), and restarted whenever the adapters change
/// (bluetoothd (re)appearing, an adapter added or powered on) and every
/// ``FleetSettings/discoveryRefresh`` (an adapter that stopped discovering on its own is
/// noticed, and BlueZ reports each machine's RSSI afresh after a restart of discovery).
/// Between those events the fleet sleeps on the object cache, with no timer of its own, so an
/// idle gateway does not wake for it (the wake-up bar: at most once a second).
extension MachineFleet {
    /// Adapters and whether each is powered: what decides where discovery can run.
    typealias AdapterSignature = [String: Bool]

    /// Whether some machine is missing: room for one not yet found, or one not linked.
    var wantsDiscovery: Bool {
        // The floor hears machines it does not hold: a neighbour's, to stand in when it dies.
        if floor != nil { return true }
        if settings.allow.isEmpty, supervised.count < settings.maxConnected { return true }
        return supervised.values.contains { !$0.link.isLinked }
    }

    /// Follows the machines until cancelled (see the extension's comment).
    func followMachines(_ client: BlueZClient) async {
        var held = false
        var heldGeneration = -1
        var heldAdapters: AdapterSignature = [:]
        // The adapters to stop and start again: every one at the refresh, or those not scanning.
        var restart: Set<String>?
        var check = settings.discoveryCheck
        var reported: [MachineSighting] = []
        while !Task.isCancelled {
            if let floor {
                let sightings = MachineSighting.all(in: await client.tree, filter: settings.filter)
                if sightings != reported {
                    reported = sightings
                    await floor.heard(sightings)
                }
                await offerHeard(client, floor: floor)
            } else if settings.allow.isEmpty {
                _ = await adoptKnown(client)
            }
            let generation = await client.generation
            let adapters = Self.adapterSignature(await client.tree)
            if wantsDiscovery, !supervised.values.contains(where: { $0.link.holdsDiscovery }) {
                if !held || restart != nil || generation != heldGeneration || adapters != heldAdapters {
                    do {
                        if held {
                            try await client.holdDiscovery(filter: settings.filter, restarting: restart ?? [])
                        } else {
                            try await client.acquireDiscovery(filter: settings.filter)
                            held = true
                        }
                        let sessions = await client.discoveringAdapters
                        logger.debug("discovering on \(sessions.sorted().map(AdapterBudget.name))")
                    } catch {
                        await client.releaseDiscovery()
                        held = false
                        logger.warning("discovery could not start: \(error)")
                    }
                    heldGeneration = generation
                    heldAdapters = adapters
                }
            } else if held {
                await client.releaseDiscovery()
                held = false
            }
            if Task.isCancelled { break }
            let before = await client.tree
            let checking = held && !Self.notDiscovering(before, filter: settings.filter).isEmpty
            if !checking { check = settings.discoveryCheck }
            let refresh = checking ? min(check, settings.discoveryRefresh) : settings.discoveryRefresh
            let changed = await waitForChange(client, adapters: adapters, refresh: held ? refresh : nil)
            restart = nil
            if !changed, checking {
                let deaf = Self.notDiscovering(await client.tree, filter: settings.filter)
                if !deaf.isEmpty {
                    restart = Set(deaf)
                    logger.notice("\(deaf.map(AdapterBudget.name).joined(separator: ", ")) not discovering \(Self.seconds(check)) s after StartDiscovery: starting again")
                    check = check * 2
                }
            } else if !changed {
                restart = Set(adapters.keys.filter(settings.filter.allows(adapter:)))
            }
            await wakeAdvertising(client, since: before)
        }
        if held { await Task { await client.releaseDiscovery() }.value }
    }

    /// Waits until the adapters change, a machine the fleet would adopt appears, a machine
    /// it waits to reconnect advertises, or the fleet's own state changes; returns false
    /// when `refresh` passed first.
    private func waitForChange(_ client: BlueZClient, adapters: AdapterSignature, refresh: Duration?) async -> Bool {
        let known = Set(supervised.keys)
        let settings = settings
        let adopting = floor == nil && settings.allow.isEmpty && supervised.count < settings.maxConnected
        let listening = floor != nil
        let sightings = listening ? MachineSighting.all(in: await client.tree, filter: settings.filter) : []
        let waiting = await waitingTargets()
        let heard = Self.advertisements(of: waiting, in: await client.tree, filter: settings.filter)
        if fleetChange.take() { return true }
        let timers = timers
        let changed: Bool? = await firstOf(
            {
                _ = await client.wait(until: { tree in
                    if Self.adapterSignature(tree) != adapters { return true }
                    if listening, MachineSighting.all(in: tree, filter: settings.filter) != sightings { return true }
                    if adopting, tree.machines(passing: settings.filter).contains(where: {
                        !known.contains($0.address.uppercased())
                    }) { return true }
                    guard !waiting.isEmpty else { return false }
                    let now = Self.advertisements(of: waiting, in: tree, filter: settings.filter)
                    return now.contains { key, copies in copies.advertised(since: heard[key] ?? [:]) }
                }, timeout: nil)
                return true
            },
            {
                await self.waitForFleetChange()
                return true
            },
            timeout: refresh, on: timers, then: { await self.releaseFleetWaiter() })
        return changed ?? false
    }

    /// Cuts short the backoff of each machine waiting to reconnect that was heard
    /// advertising after a silence since `before` (see ``AdvertisementLog``).
    private func wakeAdvertising(_ client: BlueZClient, since before: ObjectTree) async {
        let waiting = await waitingTargets()
        guard !waiting.isEmpty else { return }
        let was = Self.advertisements(of: waiting, in: before, filter: settings.filter)
        let now = Self.advertisements(of: waiting, in: await client.tree, filter: settings.filter)
        let time = clock.now().monotonic
        for (key, copies) in now where copies.advertised(since: was[key] ?? [:]) {
            guard advertisements.heard(key, at: time), let entry = supervised[key],
                  supervised[key]?.link.wokenByAdvertisement() == .wakeSupervisor
            else { continue }
            let target = await entry.supervisor.target
            logger.info("\(target) is advertising again: connecting now")
            await entry.supervisor.wake()
        }
    }

    /// The supervisors pausing between attempts, by key, with what they look for.
    private func waitingTargets() async -> [String: MachineTarget] {
        var targets: [String: MachineTarget] = [:]
        for (key, entry) in supervised where entry.link.isWaiting {
            targets[key] = await entry.supervisor.target
        }
        return targets
    }

    /// What BlueZ last heard of each waiting machine: the RSSI of each of its Device1 objects
    /// (one per adapter that hears it), by path.
    nonisolated static func advertisements(
        of targets: [String: MachineTarget], in tree: ObjectTree, filter: MachineFilter
    ) -> [String: Heard] {
        var heard: [String: Heard] = [:]
        let machines = tree.machines(passing: filter)
        for (key, target) in targets {
            var copies: Heard = [:]
            for machine in machines where target.matches(machine) { copies[machine.path] = machine.rssi }
            heard[key] = copies
        }
        return heard
    }

    /// One machine's Device1 objects and their RSSI, compared between two looks at the cache.
    typealias Heard = [String: Int?]

    /// The powered adapters `filter` allows that do not say `Discovering`.
    nonisolated static func notDiscovering(_ tree: ObjectTree, filter: MachineFilter) -> [String] {
        tree.paths(with: BlueZNames.adapter).filter { path in
            let properties = tree.properties(path, BlueZNames.adapter)
            return filter.allows(adapter: path) && properties?["Powered"]?.bool == true && properties?["Discovering"]?.bool != true
        }.sorted()
    }

    nonisolated static func adapterSignature(_ tree: ObjectTree) -> AdapterSignature {
        var adapters: AdapterSignature = [:]
        for path in tree.paths(with: BlueZNames.adapter) {
            adapters[path] = tree.properties(path, BlueZNames.adapter)?["Powered"]?.bool ?? false
        }
        return adapters
    }

    // MARK: The fleet's own changes

    /// A supervisor's link changed state: `transition` moves its ``MachineLinkState``, the fleet
    /// does what it returns, and discovery looks again.
    func noteLink(_ key: String, _ transition: (inout MachineLinkState) -> MachineLinkState.Action) {
        if var link = supervised[key]?.link {
            let action = transition(&link)
            supervised[key]?.link = link
            if action == .forgetAdvertisements { advertisements.forget(key) }
        }
        fleetChange.raise()?.resume()
    }

    /// A supervisor's stream ended: it has no link any more (its entry is gone already when
    /// the fleet stopped it).
    func noteGone(_ key: String) {
        _ = supervised[key]?.link.linkDown()
        fleetChange.raise()?.resume()
    }

    private func waitForFleetChange() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled { continuation.resume() } else { fleetChange.wait(continuation)?.resume() }
            }
        } onCancel: {
            Task { await self.releaseFleetWaiter() }
        }
        _ = fleetChange.take()
    }

    private func releaseFleetWaiter() {
        fleetChange.release()?.resume()
    }
}

extension Dictionary where Key == String, Value == Int? {
    /// Whether these copies of a machine show an advertisement since `before`: a Device1 that
    /// appeared, or an RSSI reported afresh. A copy that went away (its adapter did) or whose
    /// RSSI was invalidated (discovery stopped) is not one.
    func advertised(since before: [String: Int?]) -> Bool {
        contains { path, rssi in
            guard let previous = before[path] else { return true }
            return rssi != nil && rssi != previous
        }
    }
}

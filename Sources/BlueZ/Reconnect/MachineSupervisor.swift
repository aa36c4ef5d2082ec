import Clocks
package import FTMS
package import RetryTiming

/// Keeps one machine connected for as long as it runs (contract §2): find it (from BlueZ's
/// cache when it is known, else by discovery), run the connect sequence, stream its
/// notifications, and after any failure or drop try again after a bounded, jittered backoff.
///
/// Every fault of docs/bluez.md "Failure modes" ends the same way: the link is closed, half-open links are told
/// to disconnect, and the loop comes round. The only exit is cancellation.
package actor MachineSupervisor {
    package let client: BlueZClient
    package private(set) var target: MachineTarget
    package let filter: MachineFilter
    package let resistanceForms: ResistanceFormMemory
    /// The live link while the machine is ready, for commands.
    package private(set) var link: MachineLink?
    package nonisolated let events: AsyncStream<SupervisorEvent>
    private nonisolated let sender: SupervisorEventSender
    private var backoff: Backoff
    private let random: @Sendable () -> Double
    private let timing: Timing
    /// Chooses the adapter of each attempt under the fleet's budget; without one, the first
    /// copy of the machine BlueZ lists is taken.
    private let allocator: (any AdapterAllocator)?
    /// The key the allocator knows this machine by.
    private let allocationKey: String
    /// The backoff pause between attempts, which ``wake()`` cuts short.
    private var nap: CheckedContinuation<Void, Never>?
    private var napping = false
    private var woken = false

    /// How long each step may take before it counts as a failure.
    package struct Timing: Sendable {
        package var locate: Duration = .seconds(10)
        package var connect: Duration = .seconds(20)
        package var resolve: Duration = .seconds(20)
        /// Whether data and status notifications use AcquireNotify where BlueZ allows it.
        package var acquireNotify = true
        /// While no adapter with room hears the machine, or no adapter is there at all, how
        /// often it looks again even if no slot was given back and no adapter appeared (a
        /// signal may have been missed).
        package var placementRecheck: Duration = .seconds(10)

        package init(
            locate: Duration = .seconds(10), connect: Duration = .seconds(20), resolve: Duration = .seconds(20),
            acquireNotify: Bool = true, placementRecheck: Duration = .seconds(10)
        ) {
            self.locate = locate
            self.connect = connect
            self.resolve = resolve
            self.acquireNotify = acquireNotify
            self.placementRecheck = placementRecheck
        }
    }

    package init(
        client: BlueZClient, target: MachineTarget, filter: MachineFilter = MachineFilter(),
        resistanceForms: ResistanceFormMemory = ResistanceFormMemory(), backoff: Backoff = Backoff(),
        timing: Timing = Timing(), random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        allocator: (any AdapterAllocator)? = nil, allocationKey: String? = nil
    ) {
        self.allocator = allocator
        self.allocationKey = allocationKey ?? target.address ?? target.name ?? ""
        self.client = client
        self.target = target
        self.filter = filter
        self.resistanceForms = resistanceForms
        self.backoff = backoff
        self.timing = timing
        self.random = random
        let (events, continuation) = AsyncStream.makeStream(of: SupervisorEvent.self)
        self.events = events
        sender = SupervisorEventSender(continuation)
    }

    /// From now on, a notification that arrives while every event before it has been
    /// reported handled (``eventHandled()``) goes to `handler` on the thread that read it,
    /// instead of through ``events``; the handler may refuse one (returning false), which then
    /// goes through ``events``. Nil: every notification goes through ``events``. Only a reader
    /// of ``events`` that reports each event it has finished may set one (``SupervisorEventSender``).
    package nonisolated func handleNotificationsDirectly(_ handler: (@Sendable (Characteristic, [UInt8]) -> Bool)?) {
        sender.handleDirectly(handler)
    }

    /// The reader of ``events`` has finished one event (with a direct handler set, after each).
    package nonisolated func eventHandled() {
        sender.handled()
    }

    /// Runs until the calling task is cancelled, then disconnects and finishes ``events``.
    package func run() async {
        var attempt = 0
        var waitingFor: String?
        while !Task.isCancelled {
            attempt += 1
            let reason: String
            do {
                let found = try await client.locate(target, filter: filter, timeout: timing.locate)
                target.remember(found)
                guard let machine = try await place(found, waitingFor: &waitingFor) else {
                    attempt -= 1
                    continue
                }
                sender.send(.connecting(target, attempt: attempt))
                // Notifications go from the thread that read them (the bus thread for
                // StartNotify; the connection's datagram reader, in the daemon the fleet's
                // event loop, for AcquireNotify) straight into ``events``: no task of
                // the link's or ours sits between BlueZ and whoever reads the events. The gate
                // only holds those of the connect sequence until `.ready` is out.
                let gate = ReadyGate(events: sender)
                let link = MachineLink(
                    client: client, device: machine.path, resistanceForms: resistanceForms, acquire: timing.acquireNotify,
                    sink: { characteristic, value in gate.deliver(characteristic, value) })
                self.link = link
                let info: MachineInfo
                do {
                    info = try await link.connect(timeout: timing.connect, resolveTimeout: timing.resolve)
                } catch {
                    // Half-open (connected, no control): let BlueZ drop it so the next try starts clean.
                    await link.disconnect()
                    self.link = nil
                    await forgetIfStale(machine, after: error)
                    throw error
                }
                backoff.reset()
                attempt = 0
                unresolved = 0
                gate.open(ready: info)
                reason = await stream(link, path: machine.path)
                // Stopped while connected: the loop's end asks BlueZ to disconnect, so the
                // machine is free for a rider's phone (or the next instance) at once.
                if Task.isCancelled { break }
                await link.close()
                self.link = nil
                await allocator?.release(allocationKey)
                sender.send(.disconnected(reason: reason))
            } catch BlueZError.noAdapter {
                await allocator?.release(allocationKey)
                if Task.isCancelled { break }
                // No adapter is not the machine failing: bluetoothd restarting (it owns its name
                // seconds before its adapters are registered; the VM's `crash` scenario) or a
                // dongle unplugged. The next attempt comes the moment one appears, and neither
                // the backoff nor the attempt count grows meanwhile, so a crash of bluetoothd
                // does not leave the machine's reconnect seconds behind its return.
                attempt -= 1
                sender.send(.retrying(after: timing.placementRecheck, reason: "\(BlueZError.noAdapter)"))
                await waitForAdapter(timeout: timing.placementRecheck)
                continue
            } catch {
                await allocator?.release(allocationKey)
                if Task.isCancelled { break }
                reason = "\(error)"
            }
            let delay = backoff.next(random: random())
            sender.send(.retrying(after: delay, reason: reason))
            await pause(for: delay)
        }
        await link?.disconnect()
        link = nil
        await allocator?.release(allocationKey)
        sender.finish()
    }

    /// Links in a row whose services never resolved, or resolved without the data characteristic.
    private var unresolved = 0

    /// After two such links BlueZ is asked to forget its copy of the machine (RemoveDevice on
    /// that adapter), GATT cache and all, so the next link discovers the machine's services
    /// afresh. A cache can go stale (firmware that changed its database without saying so; in
    /// the VM, one bluetoothd serving every machine's services in one database), and bluetoothd
    /// then answers every reconnect from it, for good (seen: "the machine has no Indoor Bike
    /// Data (0x2AD2) characteristic" for minutes after a bluetoothd restart).
    private func forgetIfStale(_ machine: DiscoveredMachine, after error: any Error) async {
        switch error as? LinkError {
        case .servicesNeverResolved?, .missingCharacteristic?: unresolved += 1
        default: return
        }
        guard unresolved >= 2 else { return }
        unresolved = 0
        _ = try? await client.connection.call(
            destination: BlueZNames.service, path: machine.adapter, interface: BlueZNames.adapter,
            member: "RemoveDevice", arguments: [.objectPath(machine.path)], timeout: .seconds(10))
    }

    /// Returns once BlueZ lists an adapter ``filter`` allows, or after `timeout` (a check
    /// again, in case a signal was missed), or on cancellation.
    private func waitForAdapter(timeout: Duration) async {
        let filter = filter
        _ = await client.wait(until: { tree in
            tree.paths(with: BlueZNames.adapter).contains(where: filter.allows(adapter:))
        }, timeout: timeout)
    }

    /// The machine was heard advertising again after a silence (it woke, or was switched on):
    /// if the supervisor is pausing between attempts, the next attempt starts now instead of
    /// at the end of the backoff, so a rider's first minutes are recorded. Outside a pause it
    /// does nothing: an attempt in flight reaches the machine once it advertises. The backoff
    /// itself is kept, so a machine that advertises yet refuses every connection still backs
    /// off, as long as whoever calls this only does so after a silence.
    package func wake() {
        guard napping else { return }
        woken = true
        nap?.resume()
        nap = nil
    }

    /// Sleeps `delay` on the client's clock, or less if ``wake()`` comes first.
    private func pause(for delay: Duration) async {
        napping = true
        woken = false
        _ = await firstOf({ await self.waitForWake() }, timeout: delay, on: client.clock, then: { await self.endNap() })
    }

    private func endNap() {
        napping = false
        nap?.resume()
        nap = nil
    }

    private func waitForWake() async {
        await withCheckedContinuation { continuation in
            if woken || !napping { continuation.resume() } else { nap = continuation }
        }
    }

    /// The copy of `found` on the adapter the allocator gives this attempt, or nil after
    /// waiting for room (the caller comes round again). Without an allocator, `found` itself.
    private func place(_ found: DiscoveredMachine, waitingFor: inout String?) async throws -> DiscoveredMachine? {
        guard let allocator else { return found }
        let copies = await client.tree.reachable(target, passing: filter)
        let links = await client.links
        // A machine BlueZ already has a link to (left by another client, or by an instance
        // that crashed) is adopted on that link: connecting it again through another adapter
        // would ask it for a second link, which most machines refuse.
        let linked = copies.filter { links[$0.adapter]?.contains($0.address.uppercased()) == true }
        let seenOn = !linked.isEmpty ? linked.map(\.adapter) : copies.isEmpty ? [found.adapter] : copies.map(\.adapter)
        switch await allocator.claim(allocationKey, seenOn: seenOn, present: await client.adapters, linked: links) {
        case .use(let adapter, let reason):
            waitingFor = nil
            sender.send(.placed(adapter: adapter, reason: reason))
            return copies.first { $0.adapter == adapter } ?? found
        case .wait(let reason):
            if waitingFor != reason { sender.send(.waiting(target, reason: reason)) }
            waitingFor = reason
            await allocator.waitForRoom(timeout: timing.placementRecheck)
            try Task.checkCancellation()
            return nil
        }
    }

    /// Runs `command` on the live link (see ``MachineLink/send(_:timeout:)``).
    package func send(_ command: MachineCommand) async throws -> CommandOutcome {
        guard let link else { throw LinkError.notReady(target.description) }
        return try await link.send(command)
    }

    /// Waits (the link's sink forwards the notifications meanwhile) until the device is no
    /// longer connected, vanished, or bluetoothd restarted and its new tree lacks the
    /// connection; returns why. The wait is a cache waiter, checked only when the cache changes,
    /// which a notification no longer does.
    private func stream(_ link: MachineLink, path: String) async -> String {
        let generation = await client.generation
        let dropped = await client.wait(until: { tree in
            tree.properties(path, BlueZNames.device)?["Connected"]?.bool != true
        }, timeout: nil)
        guard dropped, !Task.isCancelled else { return "stopped" }
        if await client.generation != generation { return "bluetoothd restarted" }
        return await client.tree.properties(path, BlueZNames.device) == nil ? "the machine vanished" : "the link dropped"
    }
}

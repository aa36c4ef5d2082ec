package import BlueZ
package import Floor
package import Logging
package import MQTT
package import RetryTiming
package import Telemetry
package import Workout

/// This gateway's seat on the floor (contract §11, docs/fleet.md; its topics in docs/mqtt.md): it tells the
/// broker who this gateway is and what it hears and holds (``GatewayPresence``, every heartbeat
/// and at once on a change, with a last will that says offline), feeds every floor message into
/// its ``FloorView`` with the instant it arrived on this gateway's monotonic clock, and carries
/// out the view's decisions: a take publishes the claim and THEN connects (``MachineFleet/take(_:)``),
/// a release lists the machine in `releasing`, publishes the claim released and disconnects
/// (``MachineFleet/release(_:reason:)``).
///
/// The floor talks on its own MQTT connection (the `MQTTClient` the daemon's `[mqtt]` makes,
/// with the client id suffixed `-floor`): MQTT gives one last will per connection, the
/// gateway's `status` topic keeps its own, and the floor's is the presence, with the short
/// keepalive (5 s) that makes a power-cut gateway's will arrive within about 8 s.
package actor FloorCoordinator: FloorHooks {
    package let gateway: String
    private let topics: FloorTopics
    private let client: MQTTClient
    /// `machines.allow` as written: the machines this gateway is home to.
    private let home: [String]
    private let now: @Sendable () -> Duration
    private let timers: any Clock<Duration>
    private let logger: Logger
    private let metrics: FloorMetrics?
    private var view: FloorView
    private var fleet: MachineFleet?
    /// What the adapters heard, by address, with when (this gateway's monotonic clock).
    private var heard: [String: (name: String, rssi: Int, at: Duration)] = [:]
    /// Machines this gateway is handing over, with when it released each: it is no candidate
    /// for them until another gateway claims them, or a lease passes with nobody taking them
    /// (then it may take them back).
    private var releasing: [String: Duration] = [:]
    /// Machines whose take is under way (claim published, not yet supervised): one take each.
    private var taking: Set<String> = []
    /// Machines with a link up now (``linked(_:)``): the others this gateway holds are still
    /// connecting, and a connect can lose to another gateway's link.
    private var linkedMachines: Set<String> = []
    /// What a take decided to carry on (the session to adopt, or the ride it splits from, with
    /// the checkpoint's arrival), done only when the link comes up (``linked(_:)``): a connect
    /// the link lock refuses (the machine was on a neighbour's link all along) adopts nothing,
    /// so nothing is mirrored, finished or uploaded here for a ride another gateway still streams.
    private var pendingCarryOns: [String: (adopt: MirroredCheckpoint?, splitFrom: String?, arrival: Duration)] = [:]
    /// The epoch of this gateway's live claim of each machine it holds.
    private var ownEpochs: [String: Int] = [:]
    /// The newest checkpoint of each machine's session open here, mirrored or not (no claim
    /// yet): mirrored as soon as this gateway claims the machine.
    private var lastSnapshots: [String: SessionSnapshot] = [:]
    private var beat = 0
    private var lastPresence: GatewayPresence?
    /// The presences this gateway published lately, as sent: its own echoes, told apart from a
    /// presence another box publishes under the same name (``noticeNameClash(_:payload:retained:at:)``).
    private var sentPresences: [[UInt8]] = []
    /// When a name clash was last logged: the warning repeats at most every ``clashLogInterval``.
    private var clashLoggedAt: Duration?
    static let clashLogInterval = Duration.seconds(600)
    /// When the floor's connection came up, to tell when the broker's retained messages are in.
    private var connectedAt: Duration?
    /// Set one heartbeat after the connection came up (``floorHasArrived()``).
    private var floorArrived = false
    private var arrival: Task<Void, Never>?
    package private(set) var counters = FloorCounters()
    /// Checkpoints from before this start, waiting for the broker (``hold(_:restore:handOver:)``).
    var held: HeldCheckpoints?
    /// The gateway each machine's adopted session came from, while this gateway holds it.
    private var adoptedFrom: [String: String] = [:]
    /// The adoption this gateway made on each machine it holds, added to the machine's carried
    /// list on every checkpoint mirrored (``CarriedSession``).
    private var carriedOn: [String: CarriedSession] = [:]
    /// Machines whose next session splits from a ride no checkpoint carried over.
    private var splits: [String: String] = [:]
    /// Machines taken here with no session to carry on, while their first session here has not
    /// ended: that session may be the rest of a ride whose gateway never reached the broker
    /// (``markSplits()``).
    private var unadopted: Set<String> = []
    /// Rides this gateway lost (``settleHeld()``): told in the presence's `lost` for
    /// `hold_unconfirmed`, so the gateway holding the machine now says its session split.
    private var lost: [String: (session: String, since: Duration)] = [:]
    /// The sink's checkpoints and session ends, in order, to mirror (``mirrorHook``).
    private nonisolated let mirrored: (stream: AsyncStream<SessionMirrorEvent>, continuation: AsyncStream<SessionMirrorEvent>.Continuation)

    package init(
        gateway: String, prefix: String, home: [String], rules: FloorRules, client: MQTTClient,
        now: @escaping @Sendable () -> Duration, timers: any Clock<Duration>, logger: Logger, metrics: FloorMetrics? = nil
    ) {
        self.metrics = metrics
        self.gateway = gateway
        topics = FloorTopics(prefix: prefix)
        self.client = client
        self.home = home
        self.now = now
        self.timers = timers
        self.logger = logger
        view = FloorView(gateway: gateway, rules: rules)
        mirrored = AsyncStream.makeStream(of: SessionMirrorEvent.self, bufferingPolicy: .bufferingNewest(1000))
    }

    /// What ``SessionSink`` calls with each checkpoint and session end: queued in order, mirrored
    /// by the coordinator's task, never waiting for the broker.
    package nonisolated var mirrorHook: @Sendable (SessionMirrorEvent) -> Void {
        let continuation = mirrored.continuation
        return { event in continuation.yield(event) }
    }

    /// The floor connection's MQTT keepalive: a power-cut gateway's will comes within 1.5 times it.
    package static let keepalive = 5

    /// The floor connection's reconnect backoff: from 0.5 s up to one heartbeat, not the 30 s
    /// of the other connections. Away from the broker a gateway counts as gone to every other
    /// one and takes no machine, so after a broker restart or a cut it should be back within a
    /// heartbeat or so, not up to half a minute later (measured by scripts/floor-deaths.py:
    /// 19 s after a 25 s cut with the 30 s cap). One attempt per heartbeat is nothing to a broker.
    package static func backoff(_ rules: FloorRules) -> Backoff {
        Backoff(initial: .milliseconds(500), maximum: max(.seconds(1), rules.heartbeat))
    }

    /// The presence last will for the floor's MQTT connection.
    package static func will(gateway: String, prefix: String) -> OutgoingMessage {
        OutgoingMessage(
            topic: FloorTopics(prefix: prefix).presence(gateway: gateway), payload: GatewayPresence.will(gateway: gateway).payload,
            qos: .atLeastOnce, retain: true)
    }

    /// The fleet whose machines this coordinator places (the fleet is made with this as its floor).
    package func attach(_ fleet: MachineFleet) {
        self.fleet = fleet
    }

    // MARK: Running

    /// Connects, listens to the floor and beats until cancelled; then says offline (a clean
    /// disconnect sends no will) and disconnects.
    package func run() async {
        do {
            try client.start()
        } catch {
            logger.error("floor: the MQTT connection cannot start (\(error)): this gateway stays an island")
            return
        }
        logger.info("floor: gateway \(gateway) on \(client.configuration.broker) on \(topics.presence(gateway: gateway))")
        let streams = topics.filters.map { client.subscribe($0, qos: .atLeastOnce) }
        let events = client.events
        await withTaskGroup(of: Void.self) { group in
            for stream in streams {
                group.addTask {
                    for await message in stream { await self.receive(message) }
                }
            }
            group.addTask {
                for await event in events { await self.connection(event) }
            }
            group.addTask { await self.beatUntilCancelled() }
            let mirrored = mirrored.stream
            group.addTask {
                for await event in mirrored { await self.mirror(event) }
            }
            await group.next()
            group.cancelAll()
        }
        arrival?.cancel()
        var offline = GatewayPresence.will(gateway: gateway)
        offline.beat = beat + 1
        client.publish(OutgoingMessage(topic: topics.presence(gateway: gateway), payload: offline.payload, qos: .atLeastOnce, retain: true))
        await client.stop()
    }

    private func beatUntilCancelled() async {
        while !Task.isCancelled {
            await heartbeat()
            do {
                try await timers.sleep(for: view.rules.heartbeat)
            } catch {
                return
            }
        }
    }

    private func connection(_ event: MQTTEvent) {
        switch event {
        case .connected:
            connectedAt = now()
            floorArrived = false
            lastPresence = nil
            logger.info("floor: connected to \(client.configuration.broker)")
            // Held checkpoints are settled, and machines placed, the moment the broker's floor
            // counts as heard, not at the heartbeat after: a gateway back from the dead must
            // not upload what a neighbour carried on, nor ride unmirrored, any longer than that.
            arrival?.cancel()
            let wait = view.rules.heartbeat
            arrival = Task { [timers] in
                do { try await timers.sleep(for: wait) } catch { return }
                await self.floorHasArrived()
            }
        case .connectFailed(let reason, _), .connectionLost(let reason, _):
            connectedAt = nil
            floorArrived = false
            arrival?.cancel()
            logger.debug("floor: \(reason)")
        }
    }

    /// One heartbeat after the connection came up: every live gateway has republished, so the
    /// view is the floor's.
    private func floorHasArrived() async {
        guard connectedAt != nil, !Task.isCancelled else { return }
        floorArrived = true
        await settleHeld()
        await reassertClaims()
        await evaluate()
    }

    /// On every (re)connection, once the floor has arrived: each machine this gateway holds whose
    /// newest claim still names it is claimed again, one epoch above any seen, and its session
    /// mirrored again (docs/fleet.md, "When a gateway is cut off from the broker"). While it was
    /// away its will made that claim count for nothing; and a machine it took back before the
    /// broker was heard (its own, after a restart) has no claim of this life to mirror under.
    /// A machine another gateway claimed meanwhile is left to ``FloorView/decide(for:at:)``
    /// (the link is the lock: it reasserts the claim above the other).
    private func reassertClaims() async {
        guard let fleet else { return }
        for machine in await fleet.heldMachines() where !taking.contains(machine) {
            guard let last = view.claims[machine]?.message, last.holder == gateway else { continue }
            claim(machine, epoch: view.nextEpoch(for: machine), reason: last.reason, name: last.name, sessionID: last.sessionID)
        }
    }

    /// Whether the broker's retained floor has had time to arrive: a heartbeat since the
    /// connection came up (every live gateway republishes within one).
    package var brokerHeard: Bool {
        guard let connectedAt else { return false }
        return floorArrived || now() - connectedAt >= view.rules.heartbeat
    }

    /// One heartbeat: what the adapters hear now, the presence published, decisions applied.
    private func heartbeat() async {
        let lease = view.rules.lease
        let time = now()
        releasing = releasing.filter { time - $0.value < lease }
        lost = lost.filter { time - $0.value.since < view.rules.holdUnconfirmed }
        if let fleet {
            for sighting in await fleet.sightings() { heard[sighting.address] = (sighting.name, sighting.rssi, time) }
        }
        await publishPresence(force: true)
        await settleHeld()
        await evaluate()
    }

    // MARK: Receiving

    private func receive(_ message: MQTTMessage) async {
        guard let about = topics.parse(message.topic) else { return }
        let time = now()
        do {
            switch about {
            case .presence:
                guard !message.payload.isEmpty else { return }
                let presence = try GatewayPresence(payload: message.payload)
                noticeNameClash(presence, payload: message.payload, retained: message.retained, at: time)
                view.receive(presence: presence, at: time)
            case .claim:
                guard !message.payload.isEmpty else { return }
                let claim = try MachineClaim(payload: message.payload)
                guard view.receive(claim: claim, at: time) else { return }
                if let holder = claim.holder, holder != gateway { releasing[FloorTopics.machineKey(claim.machine)] = nil }
                if claim.holder != gateway, ownEpochs[claim.machine] != nil, claim.epoch > (ownEpochs[claim.machine] ?? 0) {
                    logger.notice("floor: \(claim.machine) claimed by \(claim.holder ?? "nobody") with epoch \(claim.epoch)")
                }
            case .checkpoint:
                guard !message.payload.isEmpty else { return }
                let checkpoint = try MirroredCheckpoint(payload: message.payload)
                guard view.receive(checkpoint: checkpoint, at: time) else { return }
                if checkpoint.holder != gateway, let fleet,
                   await fleet.giveUp(checkpoint.machine, sessionID: checkpoint.sessionID, to: checkpoint.holder) {
                    counters.handedOver.append(FloorCounters.HandedOver(sessionID: checkpoint.sessionID, machine: checkpoint.machine, to: checkpoint.holder))
                }
            }
        } catch {
            logger.debug("floor: \(message.topic): \(error)")
            return
        }
        await evaluate()
    }

    // MARK: Deciding

    /// This gateway as it is now.
    private func ownState() async -> GatewayState {
        let time = now()
        let window = view.rules.heardWindow
        let recent = heard.filter { time - $0.value.at < window }
        var holding: [String] = []
        var freeSlots = 0
        var open: Set<String> = []
        if let fleet {
            holding = await fleet.heldMachines()
            freeSlots = await fleet.freeSlots
            for status in await fleet.statuses() where status.sessionID != nil { open.insert(status.address.uppercased()) }
        }
        // A ride on its way here (adopted once the link is up) is open already: not handed back meanwhile.
        for (machine, pending) in pendingCarryOns where pending.adopt != nil { open.insert(machine) }
        let presence = GatewayPresence(
            gateway: gateway, online: true, home: home, freeSlots: freeSlots,
            heard: recent.mapValues { GatewayPresence.roundedRSSI($0.rssi) }, holding: holding, releasing: releasing.keys.sorted(),
            lost: lost.mapValues(\.session), beat: beat, rules: view.rules)
        return GatewayState(
            presence: presence, names: recent.mapValues(\.name), openSessions: open, connecting: Set(holding).subtracting(linkedMachines))
    }

    private func evaluate() async {
        guard fleet != nil, brokerHeard else { return }
        // Checkpoints from before this start are settled before any claim: a claim mirrors the
        // session open here now, and that checkpoint would hide a neighbour's of the old one.
        await settleHeld()
        await markSplits()
        let state = await ownState()
        for machine in state.connecting.sorted() {
            if let holder = view.holder(of: machine, at: now()), holder != gateway { await yieldLock(machine, to: holder) }
        }
        for decision in view.decide(for: state, at: now()) {
            switch decision {
            case .take(let machine, let epoch, let adopt, let splitFrom, let reason):
                guard !taking.contains(machine) else { continue }
                if state.presence.holding.contains(machine) {
                    claim(machine, epoch: epoch, reason: reason)
                } else {
                    await take(machine, epoch: epoch, reason: reason, name: state.names[machine], adopt: adopt, splitFrom: splitFrom)
                }
            case .release(let machine, let reason):
                // Decided on a state read before an await: a take that ran meanwhile (an adopted
                // session now open here) must not be undone. Release only if it still holds.
                guard !taking.contains(machine), await stillDecided(decision) else { continue }
                let why = switch reason {
                case .home: "its home gateway can hold it again"
                case .unheard: "this gateway neither holds a link to it nor hears it"
                }
                await release(machine, reason: .released, why: why)
            }
        }
        await publishPresence(force: false)
    }

    /// Whether the view, asked again on this gateway's state as it is now, makes `decision`.
    private func stillDecided(_ decision: PlacementDecision) async -> Bool {
        view.decide(for: await ownState(), at: now()).contains(decision)
    }

    /// Publishes the claim and records it in the view at once (not waiting for its echo).
    private func claim(_ machine: String, epoch: Int, reason: MachineClaim.Reason, name: String? = nil, sessionID: String? = nil) {
        let claim = MachineClaim(machine: machine, name: name, holder: gateway, epoch: epoch, sessionID: sessionID, reason: reason)
        client.publish(OutgoingMessage(topic: topics.claim(machine: machine), payload: claim.payload, qos: .atLeastOnce, retain: true))
        view.receive(claim: claim, at: now())
        ownEpochs[machine] = epoch
        metrics?.setClaimsHeld(ownEpochs.count)
        // A session opened here before this claim (the machine taken while the broker's floor
        // was not yet heard) is mirrored under the claim's epoch now, not at its next
        // checkpoint: a neighbour adopts only what it has seen mirrored.
        if let snapshot = lastSnapshots[machine] { mirror(.checkpoint(snapshot)) }
    }

    private func take(
        _ machine: String, epoch: Int, reason: MachineClaim.Reason, name: String?, adopt: MirroredCheckpoint?, splitFrom: String?
    ) async {
        guard let fleet else { return }
        taking.insert(machine)
        defer { taking.remove(machine) }
        claim(machine, epoch: epoch, reason: reason, name: name, sessionID: adopt?.sessionID)
        carryOnWhenLinked(machine, adopt: adopt, splitFrom: splitFrom)
        logger.info("floor: taking \(name ?? machine) (\(machine)), epoch \(epoch), \(reason.rawValue)")
        if !(await fleet.take(MachineTarget(name: name, address: machine))) {
            logger.notice("floor: \(machine) not taken (no free link or no bus): released again")
            pendingCarryOns[machine] = nil
            releaseClaim(machine, reason: .released, sessionID: nil)
        }
    }

    /// At a take: what to carry on once the link is up (``pendingCarryOns``).
    private func carryOnWhenLinked(_ machine: String, adopt: MirroredCheckpoint?, splitFrom: String?) {
        if adopt == nil, splitFrom == nil, view.mayContinueUnmirrored(machine: machine) { unadopted.insert(machine) } else { unadopted.remove(machine) }
        guard adopt != nil || splitFrom != nil else { return }
        pendingCarryOns[machine] = (adopt, splitFrom, view.checkpoints[machine]?.at ?? now())
    }

    /// The link of a machine just taken is up, before its first data: carries on the session
    /// another gateway mirrored (adoption), or notes the split, and mirrors the adopted
    /// checkpoint at once under this gateway's epoch.
    private func carryOn(_ machine: String, adopt: MirroredCheckpoint?, splitFrom: String?, arrival: Duration) async {
        guard let fleet, adopt != nil || splitFrom != nil else { return }
        guard await fleet.prepare(machine, adopting: adopt?.snapshot, arrivedAt: arrival, splitFrom: splitFrom) else { return }
        if let adopt, let snapshot = adopt.snapshot {
            counters.adoptions += 1
            metrics?.adopted()
            adoptedFrom[machine] = adopt.holder
            carriedOn[machine] = CarriedSession(sessionID: adopt.sessionID, from: adopt.holder, by: gateway)
            logger.notice("floor: session \(adopt.sessionID) on \(machine) carried on from \(adopt.holder)")
            mirror(.checkpoint(snapshot))
        } else if let splitFrom {
            counters.splitSessions += 1
            metrics?.split()
            splits[machine] = splitFrom
            logger.notice("floor: \(machine)'s ride under session \(splitFrom) reached no broker: the next session here splits from it")
        }
    }

    /// A machine taken here with nothing to carry on, whose first session here has not ended,
    /// and whose last gateway, back, says it lost a ride on it (its presence's `lost`): that
    /// session is the rest of the lost ride, and says it split from it from now on.
    private func markSplits() async {
        guard let fleet else { return }
        for machine in unadopted.sorted() where splits[machine] == nil {
            guard let session = view.lostSession(machine: machine, at: now()) else { continue }
            unadopted.remove(machine)
            splits[machine] = session
            counters.splitSessions += 1
            metrics?.split()
            await fleet.splitting(machine, from: session)
            logger.notice("floor: \(machine)'s ride under session \(session) reached no broker before its gateway went away: the session here splits from it")
            if let snapshot = await fleet.snapshot(of: machine) { mirror(.checkpoint(snapshot)) }
        }
    }

    /// Still connecting to a machine whose newer claim another live gateway holds: that gateway
    /// has its link (the link is the lock; it claimed again above this one), so this one stops
    /// trying. The claim is the other's now: nothing to release on the broker, and nothing was
    /// adopted (that waits for the link). This is how a neighbour backs off from a gateway that
    /// was only cut off from the broker: a machine's RSSI stays in BlueZ after it stops
    /// advertising, so the neighbour may have thought it heard a machine that was on the
    /// other's link all along.
    private func yieldLock(_ machine: String, to holder: String) async {
        guard let fleet, !taking.contains(machine) else { return }
        ownEpochs[machine] = nil
        pendingCarryOns[machine] = nil
        unadopted.remove(machine)
        adoptedFrom[machine] = nil
        lastSnapshots[machine] = nil
        metrics?.setClaimsHeld(ownEpochs.count)
        await fleet.release(machine, reason: "\(holder) holds its link")
        linkedMachines.remove(machine)
    }

    private func releaseClaim(_ machine: String, reason: MachineClaim.Reason, sessionID: String?) {
        let released = MachineClaim(machine: machine, holder: nil, epoch: view.nextEpoch(for: machine), sessionID: sessionID, reason: reason)
        client.publish(OutgoingMessage(topic: topics.claim(machine: machine), payload: released.payload, qos: .atLeastOnce, retain: true))
        view.receive(claim: released, at: now())
        ownEpochs[machine] = nil
        lastSnapshots[machine] = nil
        carriedOn[machine] = nil
        unadopted.remove(machine)
        metrics?.setClaimsHeld(ownEpochs.count)
    }

    /// Lists the machine in `releasing`, publishes the claim released, then disconnects it.
    private func release(_ machine: String, reason: MachineClaim.Reason, why: String, sessionID: String? = nil) async {
        guard let fleet, releasing[machine] == nil else { return }
        adoptedFrom[machine] = nil
        pendingCarryOns[machine] = nil
        releasing[machine] = now()
        await publishPresence(force: false)
        releaseClaim(machine, reason: reason, sessionID: sessionID)
        await fleet.release(machine, reason: why)
        linkedMachines.remove(machine)
        await publishPresence(force: false)
    }

    private func publishPresence(force: Bool) async {
        var presence = await ownState().presence
        if !force, let last = lastPresence {
            var same = presence
            same.beat = last.beat
            if same == last { return }
        }
        beat += 1
        presence.beat = beat
        lastPresence = presence
        let payload = presence.payload
        sentPresences.append(payload)
        if sentPresences.count > 16 { sentPresences.removeFirst() }
        client.publish(OutgoingMessage(topic: topics.presence(gateway: gateway), payload: payload, qos: .atLeastOnce, retain: true))
    }

    /// Two boxes with one floor name (an SD card cloned with its host name, a config copied
    /// with its `[fleet] gateway`) each overwrite the other's presence and claims: placement
    /// flaps, and a neighbour may take a machine mid-ride. Neither can tell from its own side,
    /// so each listens for a live presence under its own name that it did not send: once its
    /// connection has been up a heartbeat (what the broker queued for an earlier run of this
    /// gateway has arrived by then), an online presence under this name that is none of its
    /// last 16 is another box's. A retained one is not counted (an earlier run of this gateway
    /// left it), nor a last will (an earlier connection's, after a restart).
    private func noticeNameClash(_ presence: GatewayPresence, payload: [UInt8], retained: Bool, at time: Duration) {
        guard presence.gateway == gateway, presence.online, !retained, floorArrived, !sentPresences.contains(payload) else { return }
        counters.nameClashes += 1
        if let logged = clashLoggedAt, time - logged < Self.clashLogInterval { return }
        clashLoggedAt = time
        logger.error(
            "floor: another gateway publishes its presence as \(gateway) (its beat \(presence.beat), holding \(presence.holding.count) machine(s)): two boxes with one floor name overwrite each other's claims; give each its own [fleet] gateway (or host name)")
    }

    // MARK: Mirroring

    /// Publishes one of this gateway's checkpoints or session ends on the machine's checkpoint
    /// topic, under this gateway's claim epoch; a machine this gateway holds no claim of (it
    /// was handed over) is not mirrored: its new holder's checkpoints are the newer.
    private func mirror(_ event: SessionMirrorEvent) {
        let machine = event.machine.address.uppercased()
        switch event {
        case .checkpoint(let snapshot): lastSnapshots[machine] = snapshot
        case .finished, .dropped: lastSnapshots[machine] = nil
        }
        guard let epoch = ownEpochs[machine] else { return }
        var checkpoint: MirroredCheckpoint
        switch event {
        case .checkpoint(let snapshot):
            checkpoint = MirroredCheckpoint(
                machine: machine, holder: gateway, epoch: epoch, sessionID: snapshot.sessionID, state: .open, snapshot: snapshot,
                splitFrom: splits[machine])
        case .finished(let sessionID, _, let endEpoch, let splitFrom):
            checkpoint = MirroredCheckpoint(
                machine: machine, holder: gateway, epoch: epoch, sessionID: sessionID, state: .finished, endEpoch: Int(endEpoch), splitFrom: splitFrom)
            splits[machine] = nil
            adoptedFrom[machine] = nil
            unadopted.remove(machine)
        case .dropped(let sessionID, _):
            checkpoint = MirroredCheckpoint(machine: machine, holder: gateway, epoch: epoch, sessionID: sessionID, state: .finished)
            splits[machine] = nil
            adoptedFrom[machine] = nil
        }
        checkpoint.carried = view.carried(on: machine)
        if let adoption = carriedOn[machine] { checkpoint.carried = CarriedSession.record(adoption, onto: checkpoint.carried) }
        do {
            client.publish(OutgoingMessage(topic: topics.checkpoint(machine: machine), payload: try checkpoint.payload(), qos: .atLeastOnce, retain: true))
            view.receive(checkpoint: checkpoint, at: now())
        } catch {
            logger.warning("floor: checkpoint of \(checkpoint.sessionID) not mirrored: \(error)")
        }
    }

    // MARK: FloorHooks

    package func mayConnect(_ machine: MachineTarget) async -> Bool {
        guard let address = machine.address?.uppercased() else { return false }
        if let name = machine.name { noteName(address, name) }
        // Until the broker's floor is heard (just started, or cut off from the broker), the
        // view may not know a home that is alive: a gateway that started beside its neighbour
        // would otherwise take the neighbour's machine before the neighbour's presence arrived.
        // Meanwhile only what this gateway is sure of may connect: a machine its own
        // `machines.allow` names, and one it claimed and still holds (a gateway cut off from
        // the broker keeps its machines and its rides).
        guard brokerHeard else { return isOwn(address, name: machine.name) }
        await settleHeld()
        let state = await ownState()
        for case .take(let taken, let epoch, _, _, let reason) in view.decide(for: state, at: now()) where taken == address {
            guard !taking.contains(address) else { return false }
            taking.insert(address)
            defer { taking.remove(address) }
            let adopt = view.adoptable(machine: address, at: now(), disconnectGrace: view.rules.disconnectGrace)
            claim(address, epoch: epoch, reason: reason, name: machine.name, sessionID: adopt?.sessionID)
            carryOnWhenLinked(address, adopt: adopt, splitFrom: nil)
            return true
        }
        return false
    }

    package func heard(_ sightings: [MachineSighting]) async {
        let time = now()
        for sighting in sightings { heard[sighting.address] = (sighting.name, sighting.rssi, time) }
        await evaluate()
    }

    package func linked(_ machine: MachineTarget) async {
        if let address = machine.address?.uppercased() {
            linkedMachines.insert(address)
            if let pending = pendingCarryOns.removeValue(forKey: address) {
                await carryOn(address, adopt: pending.adopt, splitFrom: pending.splitFrom, arrival: pending.arrival)
            }
        }
        await publishPresence(force: false)
    }

    package func dropped(_ machine: MachineTarget, reason: String) async {
        if let address = machine.address?.uppercased() { linkedMachines.remove(address) }
        await publishPresence(force: false)
    }

    /// Whether this gateway may connect `address` without the floor's word: its own
    /// `machines.allow` names the machine, or it holds the newest claim of it.
    private func isOwn(_ address: String, name: String?) -> Bool {
        let named = home.contains { entry in
            entry.uppercased() == address || name.map { entry.caseInsensitiveCompare($0) == .orderedSame } == true
        }
        if named { return true }
        guard let epoch = ownEpochs[address] else { return false }
        return view.claims[address].map { $0.message.holder == gateway && $0.message.epoch == epoch } ?? true
    }

    private func noteName(_ address: String, _ name: String) {
        if let kept = heard[address] { heard[address] = (name, kept.rssi, kept.at) }
    }

    // MARK: Handover

    /// Hands `machines` (names or addresses; every held machine when empty) to the floor:
    /// each is listed in `releasing`, its claim released with reason `handover`, and it is
    /// disconnected, its session kept as a local checkpoint. Returns the addresses handed over.
    package func handover(_ machines: [String]) async -> [String] {
        guard let fleet else { return [] }
        let held = await fleet.heldMachines()
        var chosen: [String] = []
        if machines.isEmpty {
            chosen = held
        } else {
            let statuses = await fleet.statuses()
            for wanted in machines {
                let upper = wanted.uppercased()
                if let status = statuses.first(where: { $0.address.uppercased() == upper || $0.name.uppercased() == upper }),
                   held.contains(status.address.uppercased()) {
                    chosen.append(status.address.uppercased())
                }
            }
        }
        let statuses = await fleet.statuses()
        for machine in chosen {
            let session = statuses.first { $0.address.uppercased() == machine }?.sessionID
            if let snapshot = await fleet.snapshot(of: machine) { mirror(.checkpoint(snapshot)) }
            await release(machine, reason: .handover, why: "handed over to the floor", sessionID: session)
            counters.handovers += 1
            metrics?.handedOver()
        }
        return chosen
    }

    // MARK: Status

    /// The floor as `status` shows it, machine by machine.
    package func report() async -> FloorReport {
        let time = now()
        var machines: [FloorReport.Machine] = []
        for (machine, arrived) in view.claims.sorted(by: { $0.key < $1.key }) {
            let claim = arrived.message
            machines.append(FloorReport.Machine(
                machine: machine, name: claim.name, holder: view.holder(of: machine, at: time), epoch: claim.epoch,
                reason: claim.reason.rawValue, sessionID: claim.sessionID, adoptedFrom: adoptedFrom[machine], splitFrom: splits[machine]))
        }
        let live = view.presences.keys.filter { view.isLive($0, at: time) }.sorted()
        return FloorReport(gateway: gateway, brokerHeard: brokerHeard, liveGateways: live, machines: machines, counters: counters)
    }
}

// MARK: Checkpoints restored at start

extension FloorCoordinator {
    /// Holds the checkpoints the store kept from before this start until the broker's retained
    /// floor has arrived (or `hold_unconfirmed` passed): a session a neighbour carried on is
    /// handed over (`handOver`, never uploaded from here); the others are restored as without
    /// the floor (`restore`).
    package func hold(
        _ snapshots: [SessionSnapshot], restore: @escaping @Sendable ([SessionSnapshot]) async -> Void,
        handOver: @escaping @Sendable (SessionSnapshot, String) async -> Bool
    ) {
        guard !snapshots.isEmpty else { return }
        held = HeldCheckpoints(snapshots: snapshots, since: now(), restore: restore, handOver: handOver)
        logger.info("floor: \(snapshots.count) checkpoint(s) held until the broker says whether a neighbour carried them on (at most \(view.rules.holdUnconfirmed))")
    }

    /// At each heartbeat: settles the held checkpoints once the broker is heard or the hold ran out.
    func settleHeld() async {
        guard let pending = held else { return }
        let timedOut = now() - pending.since >= view.rules.holdUnconfirmed
        guard brokerHeard || timedOut else { return }
        held = nil
        var restoring: [SessionSnapshot] = []
        for snapshot in pending.snapshots {
            let fate = brokerHeard ? view.fate(ofSession: snapshot.sessionID, machine: snapshot.machine.address, ownEpoch: 0) : .unknown
            if case .adopted(let by) = fate, await pending.handOver(snapshot, by) {
                counters.handedOver.append(FloorCounters.HandedOver(sessionID: snapshot.sessionID, machine: snapshot.machine.address, to: by))
                continue
            }
            let machine = FloorTopics.machineKey(snapshot.machine.address)
            if case .notAdopted = fate, let holder = view.claims[machine]?.message.holder, holder != gateway {
                lost[machine] = (snapshot.sessionID, now())
                logger.notice("floor: session \(snapshot.sessionID) on \(machine) was carried on by nobody, and \(holder) has held the machine since: the ride split there")
            }
            restoring.append(snapshot)
        }
        if !brokerHeard {
            logger.notice("floor: no broker within hold_unconfirmed: \(restoring.count) checkpoint(s) restored as without the floor (the later endEpoch wins at the backend)")
        }
        await pending.restore(restoring)
    }
}

/// Checkpoints waiting for the broker's word (``FloorCoordinator/hold(_:restore:handOver:)``).
struct HeldCheckpoints: Sendable {
    var snapshots: [SessionSnapshot]
    var since: Duration
    var restore: @Sendable ([SessionSnapshot]) async -> Void
    var handOver: @Sendable (SessionSnapshot, String) async -> Bool
}

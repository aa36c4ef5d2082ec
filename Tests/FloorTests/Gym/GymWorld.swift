import DeterministicRandom
import Floor
import Workout

/// A simulated gym for the floor: machines with fixed radio geometry, gateways each running its
/// own ``FloorView`` against a ``GymBroker``, a Bluetooth link that takes one central at a time,
/// riders, and gateways that die, come back, or lose the broker. Time advances in fixed steps;
/// everything random comes from one seed (every loop that draws from it, or publishes, runs in a
/// fixed order, so a seed replays exactly).
///
/// Each gateway does what the daemon's `FloorCoordinator` does: it decides on every step (the
/// daemon decides on each message and each sighting), and a take that adopts a session carries
/// it on at once (a worker holding it disconnected, mirrored under the new claim) before the
/// connect, which the link lock may refuse. A session open on a gateway without a link to its
/// machine ends there after `disconnect_grace`, unless another gateway mirrors a checkpoint of
/// it first (then it lets it go, as `MachineFleet.giveUp` does).
///
/// A run is about 29,000 steps of 6 gateways, so the step is kept cheap: a gateway is changed
/// in place in `gateways` (a copy taken out while its collections change copies each of them,
/// the view's dictionaries included), and what never changes (the order of machines and
/// gateways, which machines each gateway can hear) is worked out once.
struct GymWorld {
    struct Machine {
        let address: String
        let name: String
        /// RSSI at each gateway that hears it.
        let rssi: [String: Int]
        /// The gateway it belongs to: the one whose allow list names it, or the loudest.
        let home: String
        /// The gateway holding the link (the lock: one central at a time).
        var linkedTo: String?
        var ride: Ride?
    }

    struct Ride {
        let number: Int
        let start: Duration
        let end: Duration
        /// Every session id any gateway recorded this ride under.
        var sessions: [String] = []
    }

    struct Session {
        let id: String
        /// The ride it records; a session adopted after its rider left records none that is on.
        let ride: Int
        /// Its newest data: the last checkpoint while linked; a session without a link ends at
        /// it after `disconnect_grace`.
        var lastCheckpoint: Duration
    }

    struct Gateway {
        let id: String
        let home: [String]
        var view: FloorView
        var alive = true
        var brokerUp = true
        /// When the broker's retained replay has all arrived: no decision before it.
        var readyAt: Duration = .zero
        var upSince: Duration = .zero
        var links: Set<String> = []
        /// Connects under way: when each completes, and the dead holder whose ride it adopts.
        var connecting: [String: (at: Duration, adoptedFrom: String?)] = [:]
        var releasing: [String: Duration] = [:]
        /// Sessions open here, linked or not (the daemon's workers).
        var sessions: [String: Session] = [:]
        var heard: [String: (rssi: Int, at: Duration)] = [:]
        var beat = 0
        var lastPresence: GatewayPresence?
        var lastPresenceAt: Duration = .zero
        /// Sessions left in the store by a death, held until the broker's floor has arrived.
        var leftOpen: [(machine: String, session: Session)] = []
        var ownEpochs: [String: Int] = [:]
        /// The adoption this gateway made on each machine it holds, added to the machine's
        /// carried list on every checkpoint it mirrors (the daemon's `carriedOn`).
        var carriedOn: [String: CarriedSession] = [:]
        /// Checkpoints mirrored while cut off from the broker, the newest of each topic, sent
        /// on rejoining; lost with a death.
        var queued: [(topic: String, body: GymMessage.Body)] = []
        var sessionCounter = 0
        /// Whether the sessions a death left were settled since the return.
        var settled = true
        /// Its place among the gateways: the phase of its scans.
        var index = 0
    }

    static let capacity = 16
    static let step = Duration.milliseconds(250)
    static let connectTime = Duration.seconds(1)
    static let settle = Duration.seconds(20)
    /// How often a session on a link mirrors a checkpoint.
    static let checkpointEvery = Duration.seconds(5)
    /// How often each gateway's scan reports the machines it hears (each gateway at its own phase).
    let scanEvery: Duration

    var now: Duration = .zero
    var machines: [String: Machine] = [:]
    var gateways: [String: Gateway] = [:]
    var broker: GymBroker
    var random: SplitMix64
    let rules: FloorRules
    let topics = FloorTopics(prefix: "gym")
    let snapshot: SessionSnapshot
    let checkpointBytes: Int
    var rideCounter = 0
    var finishedRides: [Ride] = []
    var pendingWills: [(at: Duration, gateway: String)] = []

    // What the test asserts and reports.
    var farTakes: [String] = []
    var strandedAway: [String] = []
    var doubleStreams: [String] = []
    var lockRefusals = 0
    var adoptions = 0
    var handedOver = 0
    /// Sessions an adopter let go because the lock winner carried them on.
    var gaveUp = 0
    var adoptedIDs: Set<String> = []
    /// When each gateway last died, and whether silently.
    var deaths: [String: Duration] = [:]
    var silentDeaths: [String: Bool] = [:]
    /// From a holder's death to the adopter's link, for each adoption after a death.
    var adoptionGaps: [(gap: Duration, silent: Bool)] = []
    var handedOverIDs: Set<String> = []
    var splits: [(ride: Int, mirrored: Bool, at: Duration, by: String)] = []
    var uploads: [String: [String]] = [:]
    /// Rides ended, with the instant to check that the machine is home again.
    var homeChecks: [(at: Duration, machine: String, rideEnd: Duration)] = []
    var homeChecksPassed = 0
    /// When each machine was last released.
    var released: [String: Duration] = [:]

    init(seed: UInt64, rules: FloorRules, snapshot: SessionSnapshot, scanEvery: Duration = .milliseconds(250)) throws {
        self.rules = rules
        self.scanEvery = scanEvery
        self.snapshot = snapshot
        broker = GymBroker(seed: SplitMix64.derive(seed, 1))
        random = SplitMix64(seed: SplitMix64.derive(seed, 2))
        let template = MirroredCheckpoint(machine: "C0:FF:EE:00:00:01", holder: "floor-1", epoch: 1, sessionID: "floor-1-s1", state: .open, snapshot: snapshot)
        checkpointBytes = topics.checkpoint(machine: template.machine).utf8.count + (try template.payload()).count
        let ids = (1...6).map { "floor-\($0)" }
        var homeLists: [String: [String]] = [:]
        for index in 0..<60 {
            let zone = index / 10
            let address = "C0:FF:EE:00:00:\(String(index + 1, radix: 16, uppercase: true).leftPadded(2))"
            let name = "SF-Bike-\(String(index + 1).leftPadded(4))"
            // Heard by its zone's gateway and one or two neighbours, these 14 dB or more weaker.
            var rssi = [ids[zone]: -45 - Int(random.next() % 16)]
            rssi[ids[(zone + 1) % 6]] = rssi[ids[zone]]! - 14 - Int(random.next() % 12)
            if index % 2 == 0 { rssi[ids[(zone + 5) % 6]] = rssi[ids[zone]]! - 16 - Int(random.next() % 10) }
            // Every seventh is named by an allow list: its zone's gateway, by name or by address;
            // two of them by a neighbour's list, whatever the signal.
            var home = ids[zone]
            if index % 7 == 0 {
                if index == 14 || index == 42 { home = ids[(zone + 1) % 6] }
                homeLists[home, default: []].append(index % 2 == 0 ? name.lowercased() : address)
            }
            machines[address] = Machine(address: address, name: name, rssi: rssi, home: home)
        }
        names = Dictionary(uniqueKeysWithValues: machines.values.map { ($0.address, $0.name) })
        machineOrder = machines.keys.sorted()
        gatewayOrder = ids
        for id in ids {
            audible[id] = machineOrder.compactMap { address in machines[address]?.rssi[id].map { (address, $0) } }
        }
        for (index, id) in ids.enumerated() {
            gateways[id] = Gateway(id: id, home: homeLists[id] ?? [], view: FloorView(gateway: id, rules: rules), index: index)
        }
        for id in ids {
            let readyAt = ready(id, connectingAt: .zero)
            gateways[id]?.readyAt = readyAt
        }
    }

    /// Connects a gateway to the broker at `at`; it decides once its floor has arrived: the
    /// retained replay, and a heartbeat (the daemon's `brokerHeard`: every live gateway has
    /// republished its presence within one).
    private mutating func ready(_ id: String, connectingAt at: Duration) -> Duration {
        max(broker.connect(id, at: at), at + rules.heartbeat)
    }

    // MARK: The run

    mutating func run(until end: Duration, events: [(at: Duration, gateway: String, event: GatewayEvent)]) {
        var pending = events.sorted { $0.at < $1.at }
        while now < end {
            now += Self.step
            steps += 1
            while let first = pending.first, first.at <= now {
                pending.removeFirst()
                apply(first.event, to: first.gateway)
            }
            while let will = pendingWills.first, will.at <= now {
                pendingWills.removeFirst()
                publish(.presence(.will(gateway: will.gateway)), topic: topics.presence(gateway: will.gateway))
            }
            riders()
            for id in gatewayOrder { scan(id) }
            for id in gatewayOrder { completeConnects(id) }
            for id in gatewayOrder { receive(id) }
            for id in gatewayOrder { act(id) }
            for id in gatewayOrder { record(id) }
            check()
        }
    }

    enum GatewayEvent { case dieWithWill, dieSilently, returns, cutOff, rejoin }

    private mutating func apply(_ event: GatewayEvent, to id: String) {
        guard var gateway = gateways[id] else { return }
        switch event {
        case .dieWithWill, .dieSilently:
            guard gateway.alive else { return }
            deaths[id] = now
            silentDeaths[id] = event == .dieSilently
            gateway.alive = false
            gateway.brokerUp = false
            broker.disconnect(id)
            for machine in gateway.links { machines[machine]?.linkedTo = nil }
            gateway.leftOpen += gateway.sessions.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            gateway.ownEpochs = [:]
            gateway.carriedOn = [:]
            gateway.queued = []
            gateway.links = []
            gateway.connecting = [:]
            gateway.sessions = [:]
            gateway.releasing = [:]
            gateway.heard = [:]
            // The broker notices a dead connection after 1.5 keepalives (5 s); a silent death's
            // will is lost (the lease has to find it).
            if event == .dieWithWill {
                pendingWills.append((now + .milliseconds(500 + Int64(random.next() % 7000)), id))
                pendingWills.sort { $0.at < $1.at }
            }
        case .returns:
            guard !gateway.alive else { return }
            gateway.alive = true
            gateway.brokerUp = true
            gateway.view = FloorView(gateway: id, rules: rules)
            gateway.lastPresence = nil
            gateway.upSince = now
            gateway.settled = false
            gateway.readyAt = ready(id, connectingAt: now + .seconds(1))
        case .cutOff:
            guard gateway.alive, gateway.brokerUp else { return }
            gateway.brokerUp = false
            broker.disconnect(id)
            pendingWills.append((now + .seconds(7), id))
            pendingWills.sort { $0.at < $1.at }
        case .rejoin:
            guard gateway.alive, !gateway.brokerUp else { return }
            gateway.brokerUp = true
            gateway.lastPresence = nil
            gateway.readyAt = ready(id, connectingAt: now + .seconds(1))
            let queued = gateway.queued
            gateway.queued = []
            gateways[id] = gateway
            for message in queued {
                if case .checkpoint(let checkpoint) = message.body { mirroredSessions.insert(checkpoint.sessionID) }
                publish(message.body, topic: message.topic)
            }
            reassertAfterRejoin(id)
            return
        }
        gateways[id] = gateway
    }

    /// Riders come and go: a machine idle for a while gets a rider for 10 to 30 minutes.
    private mutating func riders() {
        for address in machineOrder {
            guard let machine = machines[address] else { continue }
            if let ride = machine.ride, ride.end <= now {
                finishedRides.append(ride)
                homeChecks.append((now + Self.settle, address, now))
                machines[address]?.ride = nil
            } else if machine.ride == nil, random.next() % 1200 == 0 {
                rideCounter += 1
                machines[address]?.ride = Ride(number: rideCounter, start: now, end: now + .seconds(300 + Int64(random.next() % 900)))
            }
        }
    }

    private mutating func scan(_ id: String) {
        guard let index = gateways[id].flatMap({ $0.alive ? $0.index : nil }) else { return }
        let every = max(1, Int((scanEvery / Self.step).rounded()))
        if (steps + index) % every == 0 {
            for (address, rssi) in audible[id] ?? [] where machines[address]?.linkedTo == nil {
                let reading = (rssi: rssi + Int(random.next() % 5) - 2, at: now)
                gateways[id]?.heard[address] = reading
            }
        }
        let window = rules.heardWindow
        let expired = gateways[id]?.heard.compactMap { now - $0.value.at < window ? nil : $0.key } ?? []
        for address in expired { gateways[id]?.heard[address] = nil }
    }

    /// A connect completes unless the link lock refuses it (the machine is on another's link,
    /// or no longer heard). The link carries on the session open here, if any: `record` starts,
    /// continues or ends sessions on what the link shows.
    private mutating func completeConnects(_ id: String) {
        guard var gateway = gateways[id], gateway.alive else { return }
        for (address, connect) in gateway.connecting.sorted(by: { $0.key < $1.key }) where connect.at <= now {
            gateway.connecting[address] = nil
            guard var machine = machines[address], machine.linkedTo == nil, gateway.heard[address] != nil else {
                lockRefusals += 1
                continue
            }
            if machine.home != id, let home = gateways[machine.home], able(home, for: address), home.connecting[address] == nil {
                farTakes.append("\(now): \(id) linked \(address) whose home \(machine.home) could hold it")
            }
            machine.linkedTo = id
            gateway.links.insert(address)
            gateway.heard[address] = nil
            if let holder = connect.adoptedFrom, let death = deaths[holder], let silent = silentDeaths[holder] {
                adoptionGaps.append((now - death, silent))
            }
            machines[address] = machine
        }
        gateways[id] = gateway
    }

    var mirroredSessions: Set<String> = []
    var names: [String: String] = [:]
    var steps = 0
    /// Machines by address, gateways by id, sorted: the fixed order every loop runs in.
    var machineOrder: [String] = []
    var gatewayOrder: [String] = []
    /// The machines each gateway can hear, with their RSSI there, in `machineOrder`.
    var audible: [String: [(address: String, rssi: Int)]] = [:]
    /// The bytes a checkpoint's carried list adds to its payload, by list (it is the same for
    /// every checkpoint that carries the list).
    var carriedBytes: [[CarriedSession]: Int] = [:]

    private mutating func receive(_ id: String) {
        guard gateways[id]?.alive == true, gateways[id]?.brokerUp == true, var gateway = gateways.removeValue(forKey: id) else { return }
        for message in broker.deliver(to: id, by: now) {
            switch message.body {
            case .presence(let presence): gateway.view.receive(presence: presence, at: now)
            case .claim(let claim): gateway.view.receive(claim: claim, at: now)
            case .checkpoint(let checkpoint):
                guard gateway.view.receive(checkpoint: checkpoint, at: now), checkpoint.holder != id else { continue }
                // Another gateway carries on a session open here without a link: let it go.
                let machine = FloorTopics.machineKey(checkpoint.machine)
                if gateway.sessions[machine]?.id == checkpoint.sessionID, !gateway.links.contains(machine), gateway.connecting[machine] == nil {
                    gateway.sessions[machine] = nil
                    gaveUp += 1
                    handedOverIDs.insert(checkpoint.sessionID)
                }
            }
        }
        gateways[id] = gateway
    }

    private func presence(of gateway: Gateway) -> GatewayPresence {
        GatewayPresence(
            gateway: gateway.id, home: gateway.home, freeSlots: max(0, Self.capacity - gateway.links.count - gateway.connecting.count),
            heard: gateway.heard.mapValues { GatewayPresence.roundedRSSI($0.rssi) }, holding: gateway.links.union(gateway.connecting.keys).sorted(),
            releasing: gateway.releasing.keys.sorted(), beat: gateway.beat)
    }

    /// Presence (every heartbeat, and at once when the machines heard, held or released change),
    /// then the placement decisions.
    private mutating func act(_ id: String) {
        guard var gateway = gateways[id], gateway.alive, gateway.brokerUp else { return }
        for (machine, since) in gateway.releasing where now - since > rules.lease { gateway.releasing[machine] = nil }
        for machine in gateway.releasing.keys where gateway.view.holder(of: machine, at: now).map({ $0 != id }) ?? false {
            gateway.releasing[machine] = nil
        }
        var current = presence(of: gateway)
        let changed = gateway.lastPresence.map { last in
            last.heard.count != current.heard.count || last.heard.keys.contains { current.heard[$0] == nil } || last.holding != current.holding
                || last.releasing != current.releasing
                || (last.freeSlots == 0) != (current.freeSlots == 0)
        } ?? true
        if changed || now - gateway.lastPresenceAt >= rules.heartbeat {
            gateway.beat += 1
            current.beat = gateway.beat
            gateway.lastPresence = current
            gateway.lastPresenceAt = now
            gateways[id] = gateway
            publish(.presence(current), topic: topics.presence(gateway: id))
            gateway = gateways[id] ?? gateway
        }
        guard now >= gateway.readyAt else {
            gateways[id] = gateway
            return
        }
        settleLeftOpen(&gateway)
        // The names of the machines it hears, as the daemon's `ownState` passes them (a machine
        // held and not heard is named by its claim in the view).
        let heardNames = Dictionary(uniqueKeysWithValues: gateway.heard.keys.compactMap { address in names[address].map { (address, $0) } })
        let state = GatewayState(presence: current, names: heardNames, openSessions: Set(gateway.sessions.keys), connecting: Set(gateway.connecting.keys))
        let decisions = gateway.view.decide(for: state, at: now)
        gateways[id] = gateway
        for decision in decisions { apply(decision, by: id) }
    }

    /// A gateway back with sessions of its own asks the floor, once its floor has arrived, what
    /// became of them (as the daemon's `settleHeld`, which knows no epoch of its own from before
    /// the start): adopted ones are handed over, never uploaded; the others are restored as
    /// sessions without a link (ended at their checkpoint after the grace, or carried on by a
    /// link, or let go when another gateway mirrors them).
    private mutating func settleLeftOpen(_ gateway: inout Gateway) {
        guard !gateway.settled else { return }
        gateway.settled = true
        for left in gateway.leftOpen {
            if case .adopted = gateway.view.fate(ofSession: left.session.id, machine: left.machine, ownEpoch: 0) {
                handedOver += 1
                handedOverIDs.insert(left.session.id)
            } else if gateway.sessions[left.machine] == nil {
                gateway.sessions[left.machine] = left.session
            } else {
                uploads[left.session.id, default: []].append(gateway.id)
            }
        }
        gateway.leftOpen = []
    }

    /// A take publishes the claim, then (a new link) carries on the session it adopts at once,
    /// mirrored under the new claim, then connects: the daemon's `FloorCoordinator.take`. A take
    /// of a machine linked or connecting here reasserts the claim (no session named). A release
    /// publishes the claim released and disconnects; a session open on the machine stays here
    /// without a link.
    private mutating func apply(_ decision: PlacementDecision, by id: String) {
        guard var gateway = gateways[id], let machine = machines[decision.machine] else { return }
        switch decision {
        case .take(let address, let epoch, let adopt, _, let reason):
            let linkedHere = gateway.links.contains(address) || gateway.connecting[address] != nil
            let claim = MachineClaim(
                machine: address, name: machine.name, holder: id, epoch: epoch, sessionID: linkedHere ? nil : adopt?.sessionID, reason: reason)
            gateway.view.receive(claim: claim, at: now)
            gateway.ownEpochs[address] = epoch
            gateways[id] = gateway
            publish(.claim(claim), topic: topics.claim(machine: address))
            // The claim mirrors the session linked here under its epoch at once.
            if gateway.links.contains(address) { mirror(address, by: id, state: .open) }
            guard !linkedHere else { return }
            gateway = gateways[id] ?? gateway
            if let adopt, gateway.sessions[address] == nil {
                let ride = machine.ride.flatMap { $0.sessions.contains(adopt.sessionID) ? $0.number : nil } ?? -1
                let arrived = gateway.view.checkpoints[address]?.at ?? now
                gateway.sessions[address] = Session(id: adopt.sessionID, ride: ride, lastCheckpoint: arrived)
                gateway.carriedOn[address] = CarriedSession(sessionID: adopt.sessionID, from: adopt.holder, by: id)
                adoptions += 1
                adoptedIDs.insert(adopt.sessionID)
                gateways[id] = gateway
                mirror(address, by: id, state: .open)
                gateway = gateways[id] ?? gateway
            }
            // The gap from a death to the link is measured for a ride adopted from a dead holder.
            gateway.connecting[address] = (now + Self.connectTime, adopt.flatMap { gateways[$0.holder]?.alive == false ? $0.holder : nil })
            gateways[id] = gateway
        case .release(let address, _):
            released[address] = now
            gateway.releasing[address] = now
            let epoch = gateway.view.nextEpoch(for: address)
            let claim = MachineClaim(machine: address, name: machine.name, holder: nil, epoch: epoch, reason: .released)
            gateway.view.receive(claim: claim, at: now)
            gateway.ownEpochs[address] = nil
            gateway.carriedOn[address] = nil
            if gateway.links.remove(address) != nil { machines[address]?.linkedTo = nil }
            gateway.connecting[address] = nil
            gateways[id] = gateway
            publish(.claim(claim), topic: topics.claim(machine: address))
        }
    }

    /// Back on the broker with its links kept: its claims go out again above anything seen.
    private mutating func reassertAfterRejoin(_ id: String) {
        guard var gateway = gateways[id] else { return }
        for address in gateway.links.sorted() {
            let epoch = max(gateway.view.nextEpoch(for: address), (gateway.ownEpochs[address] ?? 0) + 1)
            let reason = gateway.view.claims[address].flatMap { $0.message.holder == id ? $0.message.reason : nil } ?? .adopted
            let claim = MachineClaim(machine: address, name: machines[address]?.name, holder: id, epoch: epoch, sessionID: gateway.sessions[address]?.id, reason: reason)
            gateway.view.receive(claim: claim, at: now)
            gateway.ownEpochs[address] = epoch
            gateways[id] = gateway
            publish(.claim(claim), topic: topics.claim(machine: address))
            mirror(address, by: id, state: .open)
            gateway = gateways[id] ?? gateway
        }
    }

    /// Sessions: on a link, checkpoints every 5 s while ridden, finished when the rider has
    /// left, a new one when a rider comes; without a link, ended at the last checkpoint after
    /// `disconnect_grace`.
    private mutating func record(_ id: String) {
        // What is due is found first, in any order, then done in address order (the order it
        // publishes in): most steps nothing is, and nothing done for one machine changes what
        // is due for another. Taken out of the gateway (no copy of it, nor of its sessions, is
        // held while it changes in place below).
        let links: Set<String>
        let due: [(address: String, session: Session, ends: Bool)]
        do {
            guard let gateway = gateways[id], gateway.alive else { return }
            links = gateway.links
            due = gateway.sessions.compactMap { address, session in
                if links.contains(address) {
                    if machines[address]?.ride?.number != session.ride { return (address, session, true) }
                    return now - session.lastCheckpoint >= Self.checkpointEvery ? (address, session, false) : nil
                }
                return now - session.lastCheckpoint >= rules.disconnectGrace ? (address, session, true) : nil
            }
        }
        for (address, session, ends) in due.sorted(by: { $0.address < $1.address }) {
            if ends {
                finish(session, on: address, by: id)
            } else {
                gateways[id]?.sessions[address]?.lastCheckpoint = now
                mirror(address, by: id, state: .open)
            }
        }
        // A rider on a machine linked here without a session: a new session.
        let starting: [String] = {
            guard let open = gateways[id]?.sessions else { return [] }
            return links.filter { open[$0] == nil && machines[$0]?.ride != nil }.sorted()
        }()
        for address in starting {
            guard var ride = machines[address]?.ride else { continue }
            gateways[id]?.sessionCounter += 1
            let session = Session(id: "\(id)-s\(gateways[id]?.sessionCounter ?? 0)", ride: ride.number, lastCheckpoint: now)
            if let previous = ride.sessions.last { splits.append((ride.number, mirroredSessions.contains(previous), now, id)) }
            ride.sessions.append(session.id)
            machines[address]?.ride = ride
            gateways[id]?.sessions[address] = session
            mirror(address, by: id, state: .open)
        }
    }

    private mutating func finish(_ session: Session, on address: String, by id: String) {
        uploads[session.id, default: []].append(id)
        gateways[id]?.sessions[address] = nil
        mirror(address, by: id, state: .finished, session: session)
    }

    private mutating func mirror(_ address: String, by id: String, state: MirroredCheckpoint.State, session: Session? = nil) {
        // Only under a claim of this gateway's (the daemon's `mirror`): a machine released or
        // handed over has a newer holder whose checkpoints are the newer.
        let mirrored: Session, epoch: Int, brokerUp: Bool
        var carried: [CarriedSession]
        do {
            // Scoped: a copy of the gateway alive while its view changes below would copy the view.
            guard let gateway = gateways[id], let chosen = session ?? gateway.sessions[address], let own = gateway.ownEpochs[address] else { return }
            (mirrored, epoch, brokerUp) = (chosen, own, gateway.brokerUp)
            carried = gateway.view.carried(on: address)
            if let adoption = gateway.carriedOn[address] { carried = CarriedSession.record(adoption, onto: carried) }
        }
        let checkpoint = MirroredCheckpoint(
            machine: address, holder: id, epoch: epoch, sessionID: mirrored.id, state: state,
            snapshot: state == .open ? snapshot : nil, endEpoch: state == .finished ? 1_764_400_000 + Int(now.components.seconds) : nil,
            carried: carried)
        // Recorded in its own view at once, as the daemon does (the next one copies its list on).
        gateways[id]?.view.receive(checkpoint: checkpoint, at: now)
        let topic = topics.checkpoint(machine: address)
        guard brokerUp else {
            // Cut off from the broker: the MQTT client keeps it and sends it on reconnecting
            // (its queue, and the newest retained message of each topic renewed).
            gateways[id]?.queued.removeAll { $0.topic == topic }
            gateways[id]?.queued.append((topic, .checkpoint(checkpoint)))
            return
        }
        mirroredSessions.insert(mirrored.id)
        publish(.checkpoint(checkpoint), topic: topic)
    }

    private mutating func publish(_ body: GymMessage.Body, topic: String) {
        let bytes: Int
        switch body {
        case .presence(let presence): bytes = presence.payload.count
        case .claim(let claim): bytes = claim.payload.count
        case .checkpoint(let checkpoint):
            // The snapshot's bytes measured once (the template); the carried list on top,
            // measured once per list.
            guard checkpoint.snapshot != nil else {
                bytes = (try? checkpoint.payload())?.count ?? 0
                break
            }
            let listBytes = carriedBytes[checkpoint.carried] ?? {
                var bare = checkpoint
                bare.snapshot = nil
                let withList = (try? bare.payload())?.count ?? 0
                bare.carried = []
                return withList - ((try? bare.payload())?.count ?? 0)
            }()
            carriedBytes[checkpoint.carried] = listBytes
            bytes = checkpointBytes - topic.utf8.count + listBytes
        }
        broker.publish(GymMessage(topic: topic, body: body, bytes: topic.utf8.count + bytes), at: now)
    }

    // MARK: Checks

    /// The home could hold the machine: alive and on the broker for `settle`, with a free slot.
    func able(_ home: Gateway, for machine: String) -> Bool {
        home.alive && home.brokerUp && now - home.upSince >= Self.settle && now - home.readyAt >= Self.settle
            && home.links.count + home.connecting.count < Self.capacity
    }

    private mutating func check() {
        // One pass over the gateways, not one per machine: how many stream each machine, and
        // each one's links.
        var streamers: [String: Int] = [:]
        var links: [String: Set<String>] = [:]
        for (id, gateway) in gateways {
            links[id] = gateway.links
            guard gateway.alive else { continue }
            for address in gateway.links where gateway.sessions[address] != nil { streamers[address, default: 0] += 1 }
        }
        for (address, machine) in machines {
            if streamers[address, default: 0] > 1 {
                let streaming = gateways.values.filter { $0.alive && $0.sessions[address] != nil && $0.links.contains(address) }
                doubleStreams.append("\(now): \(address) streamed by \(streaming.map(\.id))")
            }
            if let holder = machine.linkedTo, links[holder]?.contains(address) != true {
                doubleStreams.append("\(now): \(address) locked by \(holder), which has no link")
            }
        }
        while let check = homeChecks.first, check.at <= now {
            homeChecks.removeFirst()
            guard let machine = machines[check.machine], let home = gateways[machine.home] else { continue }
            // Given back later than the ride's end (its holder was cut off from the broker then,
            // and could release it only on rejoining): judged `settle` after the release.
            if machine.linkedTo == nil, let at = released[check.machine], at > check.rideEnd + .seconds(2), now < at + Self.settle {
                let index = homeChecks.firstIndex { $0.at > at + Self.settle } ?? homeChecks.endIndex
                homeChecks.insert((at + Self.settle, check.machine, check.rideEnd), at: index)
                continue
            }
            // A new ride began on it, or the home was not able all along: nothing to judge.
            guard machine.ride == nil, able(home, for: check.machine), now - home.upSince >= Self.settle * 2 else { continue }
            // A holder cut off from the broker keeps what it holds: it cannot publish a release.
            if let holder = machine.linkedTo.flatMap({ gateways[$0] }), !holder.brokerUp || now - holder.readyAt < Self.settle { continue }
            if machine.linkedTo == machine.home || machine.linkedTo == nil && home.connecting[check.machine] != nil {
                homeChecksPassed += 1
            } else {
                strandedAway.append("\(now): \(check.machine) held by \(machine.linkedTo ?? "nobody") \(Self.settle) after its ride, home \(machine.home)")
            }
        }
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

import DeterministicRandom
import Floor
import Workout

/// A simulated gym for the floor: machines with fixed radio geometry, gateways each running its
/// own ``FloorView`` against a ``GymBroker``, a Bluetooth link that takes one central at a time,
/// riders, and gateways that die, come back, or lose the broker. Time advances in fixed steps;
/// everything random comes from one seed.
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
        let ride: Int
        var lastCheckpoint: Duration
        /// Checkpoints of it that reached the broker.
        var mirrored = 0
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
        var connecting: [String: (at: Duration, adopt: MirroredCheckpoint?, splitFrom: String?)] = [:]
        var releasing: [String: Duration] = [:]
        var sessions: [String: Session] = [:]
        var heard: [String: (rssi: Int, at: Duration)] = [:]
        var beat = 0
        var lastPresence: GatewayPresence?
        var lastPresenceAt: Duration = .zero
        /// Sessions left in the store by a death: (machine, session, own claim epoch, saved at).
        var leftOpen: [(machine: String, session: Session, epoch: Int, savedAt: Duration)] = []
        var ownEpochs: [String: Int] = [:]
        var sessionCounter = 0
    }

    static let capacity = 16
    static let step = Duration.milliseconds(250)
    static let connectTime = Duration.seconds(1)
    static let settle = Duration.seconds(20)

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
    var splits: [(ride: Int, mirrored: Bool, at: Duration, by: String)] = []
    var uploads: [String: [String]] = [:]
    /// Rides ended, with the instant to check that the machine is home again.
    var homeChecks: [(at: Duration, machine: String, rideEnd: Duration)] = []
    var homeChecksPassed = 0

    init(seed: UInt64, rules: FloorRules, snapshot: SessionSnapshot) throws {
        self.rules = rules
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
        for id in ids { gateways[id] = Gateway(id: id, home: homeLists[id] ?? [], view: FloorView(gateway: id, rules: rules)) }
        for id in ids { gateways[id]?.readyAt = broker.connect(id, at: .zero) }
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
            for id in gateways.keys.sorted() { scan(id) }
            for id in gateways.keys.sorted() { completeConnects(id) }
            for id in gateways.keys.sorted() { receive(id) }
            for id in gateways.keys.sorted() { act(id) }
            for id in gateways.keys.sorted() { record(id) }
            check()
        }
    }

    enum GatewayEvent { case dieWithWill, dieSilently, returns, cutOff, rejoin }

    private mutating func apply(_ event: GatewayEvent, to id: String) {
        guard var gateway = gateways[id] else { return }
        switch event {
        case .dieWithWill, .dieSilently:
            guard gateway.alive else { return }
            gateway.alive = false
            gateway.brokerUp = false
            broker.disconnect(id)
            for machine in gateway.links { machines[machine]?.linkedTo = nil }
            for (machine, session) in gateway.sessions {
                gateway.leftOpen.append((machine, session, gateway.ownEpochs[machine] ?? 0, session.lastCheckpoint))
            }
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
            gateway.readyAt = broker.connect(id, at: now + .seconds(1))
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
            gateway.readyAt = broker.connect(id, at: now + .seconds(1))
            gateway.leftOpen = []
            gateways[id] = gateway
            reassertAfterRejoin(id)
            return
        }
        gateways[id] = gateway
    }

    /// Riders come and go: a machine idle for a while gets a rider for 10 to 30 minutes.
    private mutating func riders() {
        for address in machines.keys.sorted() {
            guard var machine = machines[address] else { continue }
            if let ride = machine.ride, ride.end <= now {
                finishedRides.append(ride)
                homeChecks.append((now + Self.settle, address, now))
                machine.ride = nil
            } else if machine.ride == nil, random.next() % 1200 == 0 {
                rideCounter += 1
                machine.ride = Ride(number: rideCounter, start: now, end: now + .seconds(300 + Int64(random.next() % 900)))
            }
            machines[address] = machine
        }
    }

    private mutating func scan(_ id: String) {
        guard var gateway = gateways[id], gateway.alive else { return }
        for (address, machine) in machines where machine.linkedTo == nil {
            if let rssi = machine.rssi[id] { gateway.heard[address] = (rssi + Int(random.next() % 5) - 2, now) }
        }
        gateway.heard = gateway.heard.filter { now - $0.value.at < rules.heardWindow }
        gateways[id] = gateway
    }

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
            if var ride = machine.ride {
                var session: Session
                if let restored = gateway.leftOpen.firstIndex(where: { $0.machine == address && now - $0.savedAt < rules.disconnectGrace }) {
                    session = gateway.leftOpen.remove(at: restored).session
                } else if let adopt = connect.adopt {
                    session = Session(id: adopt.sessionID, ride: ride.number, lastCheckpoint: now)
                    adoptions += 1
                } else {
                    gateway.sessionCounter += 1
                    session = Session(id: "\(id)-s\(gateway.sessionCounter)", ride: ride.number, lastCheckpoint: now)
                    if let previous = ride.sessions.last {
                        splits.append((ride.number, mirroredSessions.contains(previous), now, id))
                    }
                }
                if ride.sessions.last != session.id { ride.sessions.append(session.id) }
                machine.ride = ride
                gateway.sessions[address] = session
                gateways[id] = gateway
                mirror(address, by: id, state: .open)
                gateway = gateways[id] ?? gateway
            }
            machines[address] = machine
        }
        gateways[id] = gateway
    }

    var mirroredSessions: Set<String> = []
    var names: [String: String] = [:]
    /// Gateways decide every fourth step (1 s), as a daemon does on its timer and on messages.
    var steps = 0

    private mutating func receive(_ id: String) {
        guard var gateway = gateways[id], gateway.alive, gateway.brokerUp else { return }
        for message in broker.deliver(to: id, by: now) {
            switch message.body {
            case .presence(let presence): gateway.view.receive(presence: presence, at: now)
            case .claim(let claim): gateway.view.receive(claim: claim, at: now)
            case .checkpoint(let checkpoint): gateway.view.receive(checkpoint: checkpoint, at: now)
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
            Set(last.heard.keys) != Set(current.heard.keys) || last.holding != current.holding || last.releasing != current.releasing
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
        guard steps % 4 == 0 else {
            gateways[id] = gateway
            return
        }
        let state = GatewayState(presence: current, names: names, openSessions: Set(gateway.sessions.keys))
        let decisions = gateway.view.decide(for: state, at: now)
        gateways[id] = gateway
        for decision in decisions { apply(decision, by: id) }
    }

    /// A gateway back with sessions of its own asks the floor what became of them.
    private mutating func settleLeftOpen(_ gateway: inout Gateway) {
        gateway.leftOpen.removeAll { left in
            switch gateway.view.fate(ofSession: left.session.id, machine: left.machine, ownEpoch: left.epoch) {
            case .adopted:
                handedOver += 1
                return true
            case .notAdopted, .unknown:
                guard now - left.savedAt >= rules.disconnectGrace || now - gateway.readyAt >= rules.holdUnconfirmed else { return false }
                uploads[left.session.id, default: []].append(gateway.id)
                return true
            }
        }
    }

    private mutating func apply(_ decision: PlacementDecision, by id: String) {
        guard var gateway = gateways[id], let machine = machines[decision.machine] else { return }
        switch decision {
        case .take(let address, let epoch, let adopt, let splitFrom, let reason):
            let claim = MachineClaim(
                machine: address, name: machine.name, holder: id, epoch: epoch,
                sessionID: gateway.sessions[address]?.id ?? adopt?.sessionID, reason: reason)
            gateway.view.receive(claim: claim, at: now)
            gateway.ownEpochs[address] = epoch
            if !gateway.links.contains(address), gateway.connecting[address] == nil {
                gateway.connecting[address] = (now + Self.connectTime, adopt, splitFrom)
            }
            gateways[id] = gateway
            publish(.claim(claim), topic: topics.claim(machine: address))
        case .release(let address, _):
            gateway.releasing[address] = now
            let epoch = gateway.view.nextEpoch(for: address)
            let claim = MachineClaim(machine: address, name: machine.name, holder: nil, epoch: epoch, sessionID: gateway.sessions[address]?.id, reason: .released)
            gateway.view.receive(claim: claim, at: now)
            gateway.ownEpochs[address] = epoch
            if gateway.links.remove(address) != nil { machines[address]?.linkedTo = nil }
            gateway.connecting[address] = nil
            if let session = gateway.sessions.removeValue(forKey: address) {
                gateway.leftOpen.append((address, session, epoch, session.lastCheckpoint))
            }
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
        }
    }

    /// Sessions: checkpoints every 5 s while ridden, finished when the rider leaves.
    private mutating func record(_ id: String) {
        guard let gateway = gateways[id], gateway.alive else { return }
        for (address, session) in gateway.sessions.sorted(by: { $0.key < $1.key }) {
            if machines[address]?.ride?.number != session.ride {
                uploads[session.id, default: []].append(id)
                gateways[id]?.sessions[address] = nil
                mirror(address, by: id, state: .finished, session: session)
            } else if now - session.lastCheckpoint >= .seconds(5) {
                gateways[id]?.sessions[address]?.lastCheckpoint = now
                mirror(address, by: id, state: .open)
            }
        }
        for address in gateway.links where gateways[id]?.sessions[address] == nil {
            // A rider on a machine already linked here: a new session.
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

    private mutating func mirror(_ address: String, by id: String, state: MirroredCheckpoint.State, session: Session? = nil) {
        guard let gateway = gateways[id], let session = session ?? gateway.sessions[address] else { return }
        let checkpoint = MirroredCheckpoint(
            machine: address, holder: id, epoch: gateway.ownEpochs[address] ?? 0, sessionID: session.id, state: state,
            snapshot: state == .open ? snapshot : nil, endEpoch: state == .finished ? 1_764_400_000 + Int(now.components.seconds) : nil)
        guard gateway.brokerUp else { return }
        mirroredSessions.insert(session.id)
        publish(.checkpoint(checkpoint), topic: topics.checkpoint(machine: address))
    }

    private mutating func publish(_ body: GymMessage.Body, topic: String) {
        let bytes: Int
        switch body {
        case .presence(let presence): bytes = presence.payload.count
        case .claim(let claim): bytes = claim.payload.count
        case .checkpoint(let checkpoint): bytes = checkpoint.snapshot == nil ? ((try? checkpoint.payload())?.count ?? 0) : checkpointBytes - topic.utf8.count
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
        for (address, machine) in machines {
            let streaming = gateways.values.filter { $0.alive && $0.sessions[address] != nil && $0.links.contains(address) }
            if streaming.count > 1 { doubleStreams.append("\(now): \(address) streamed by \(streaming.map(\.id))") }
            if let holder = machine.linkedTo, gateways[holder]?.links.contains(address) != true {
                doubleStreams.append("\(now): \(address) locked by \(holder), which has no link")
            }
        }
        while let check = homeChecks.first, check.at <= now {
            homeChecks.removeFirst()
            guard let machine = machines[check.machine], let home = gateways[machine.home] else { continue }
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

package import BlueZ
import Clocks

/// The per-controller link budget (`machines.max_per_adapter`, contract §2): each adapter
/// holds at most `perAdapter` links, machines go to the least-loaded adapter that hears them,
/// and a machine whose adapter is full or gone moves to one with room. Why each machine is
/// where it is (or waits) is kept as a sentence for `status` and the `machine` message.
///
/// A machine that reconnects stays on its last adapter while that one has room: BlueZ keeps
/// the GATT cache per adapter, and moving links around for balance alone would only cost
/// reconnects.
package actor AdapterBudget: AdapterAllocator {
    package nonisolated let perAdapter: Int
    private let allows: @Sendable (String) -> Bool
    private let timers: any Clock<Duration>
    /// Machine key → adapter path of the link it holds or is attempting.
    private var claims: [String: String] = [:]
    /// Machine key → the adapter of its last claim, to say why it moved.
    private var last: [String: String] = [:]
    /// Supervisors waiting for a slot.
    private var waits: [UInt64: Wait] = [:]
    private var nextWait: UInt64 = 0

    /// `allows` says whether an adapter path may be used at all (`machines.adapters`);
    /// `timers` runs the wait for room's timeout (the daemon's `EventLoopClock`).
    package init(perAdapter: Int, allows: @escaping @Sendable (String) -> Bool = { _ in true }, timers: any Clock<Duration> = ContinuousClock()) {
        self.perAdapter = max(perAdapter, 1)
        self.allows = allows
        self.timers = timers
    }

    /// Links held (or being made) through `adapter`: the fleet's claims on it, and the other
    /// links BlueZ reports there (`linked`, machine keys or addresses), each machine once.
    package func load(_ adapter: String, linked: Set<String> = []) -> Int {
        Set(claims.compactMap { $0.value == adapter ? $0.key : nil }).union(linked).count
    }

    /// The adapter `machine` holds a claim on, if any.
    package func adapter(of machine: String) -> String? { claims[machine] }

    package func claim(_ machine: String, seenOn: [String], present: [String], linked: [String: Set<String>] = [:]) -> AdapterChoice {
        if claims.removeValue(forKey: machine) != nil { wakeWaiters() }
        // The machine's own link, if BlueZ already has one, is the one it is about to use.
        let others = linked.mapValues { $0.subtracting([machine]) }
        let load = { (adapter: String) in self.load(adapter, linked: others[adapter] ?? []) }
        let candidates = Set(seenOn).filter { allows($0) && present.contains($0) }.sorted()
        guard !candidates.isEmpty else {
            return .wait(reason: seenOn.isEmpty ? "no adapter hears it" : "only adapters the configuration leaves out hear it (\(Self.names(seenOn)))")
        }
        let open = candidates.filter { load($0) < perAdapter }
        let previous = last[machine]
        let chosen: String
        if let previous, open.contains(previous) {
            chosen = previous
        } else if let best = open.min(by: { (load($0), $0) < (load($1), $1) }) {
            chosen = best
        } else {
            let full = candidates.map { "\(Self.name($0)) \(load($0))/\(perAdapter)" }.joined(separator: ", ")
            return .wait(reason: "waiting for a free link: every adapter that hears it is full (\(full))")
        }
        let reason: String
        switch previous {
        case let previous? where previous == chosen:
            reason = "stays on \(Self.name(chosen)) (\(load(chosen) + 1)/\(perAdapter) links)"
        case let previous? where !present.contains(previous):
            reason = "moved from \(Self.name(previous)), which went away"
        case let previous? where !seenOn.contains(previous):
            reason = "moved from \(Self.name(previous)), which no longer hears it"
        case let previous? where !allows(previous):
            reason = "moved from \(Self.name(previous)), which the configuration leaves out"
        case let previous?:
            reason = "moved from \(Self.name(previous)), which is full (\(load(previous))/\(perAdapter) links)"
        case nil:
            reason = "least loaded of \(candidates.count) adapter(s) that hear it (\(load(chosen) + 1)/\(perAdapter) links)"
        }
        claims[machine] = chosen
        last[machine] = chosen
        return .use(adapter: chosen, reason: reason)
    }

    package func release(_ machine: String) {
        guard claims.removeValue(forKey: machine) != nil else { return }
        wakeWaiters()
    }

    package func waitForRoom(timeout: Duration) async {
        nextWait += 1
        let id = nextWait
        waits[id] = .pending
        // Whichever comes first, the other must end too: the timer by cancellation, the wait
        // for a release by ending this wait alone.
        _ = await firstOf({ await self.nextRelease(id) }, timeout: timeout, on: timers, then: { await self.end(id) })
    }

    /// One supervisor's wait for a slot: registered, suspended, or ended before it suspended.
    private enum Wait {
        case pending
        case suspended(CheckedContinuation<Void, Never>)
        case ended
    }

    private func nextRelease(_ id: UInt64) async {
        await withCheckedContinuation { continuation in
            if case .pending? = waits[id] {
                waits[id] = .suspended(continuation)
            } else {
                waits[id] = nil
                continuation.resume()
            }
        }
    }

    private func end(_ id: UInt64) {
        switch waits[id] {
        case .suspended(let continuation)?:
            waits[id] = nil
            continuation.resume()
        case .pending?:
            waits[id] = .ended
        case .ended?, nil:
            break
        }
    }

    private func wakeWaiters() {
        for id in Array(waits.keys) { end(id) }
    }

    /// `hci1` for `/org/bluez/hci1`.
    nonisolated static func name(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    nonisolated static func names(_ paths: [String]) -> String {
        Set(paths).sorted().map(name).joined(separator: ", ")
    }
}

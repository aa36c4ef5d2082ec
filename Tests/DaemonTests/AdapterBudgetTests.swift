import Synchronization
import BlueZ
import Daemon
import Publish
import Testing
import Workout

/// The link budget's choices and reasons, without a bus.
@Suite("Daemon: adapter budget")
struct AdapterBudgetTests {
    static let all = ["/org/bluez/hci0", "/org/bluez/hci1", "/org/bluez/hci2"]

    @Test func leastLoadedFirstAndNeverPastTheBudget() async {
        let budget = AdapterBudget(perAdapter: 2)
        var chosen: [String] = []
        for machine in 1...6 {
            guard case .use(let adapter, _) = await budget.claim("M\(machine)", seenOn: Self.all, present: Self.all) else {
                Issue.record("machine \(machine) found no room")
                continue
            }
            chosen.append(adapter)
        }
        #expect(chosen == Self.all + Self.all)
        #expect(await budget.claim("M7", seenOn: Self.all, present: Self.all)
            == .wait(reason: "waiting for a free link: every adapter that hears it is full (hci0 2/2, hci1 2/2, hci2 2/2)"))
        await budget.release("M2")
        #expect(await budget.claim("M7", seenOn: Self.all, present: Self.all)
            == .use(adapter: "/org/bluez/hci1", reason: "least loaded of 3 adapter(s) that hear it (2/2 links)"))
    }

    /// Links BlueZ holds that the fleet did not make (another client's, a crashed instance's)
    /// take slots too; a machine's own link does not count against it.
    @Test func linksOthersMadeTakeSlotsAndAMachinesOwnLinkIsItsSlot() async {
        let budget = AdapterBudget(perAdapter: 1)
        let linked = ["/org/bluez/hci0": Set(["AA:00:00:00:00:01"])]
        #expect(await budget.claim("B", seenOn: Self.all, present: Self.all, linked: linked)
            == .use(adapter: "/org/bluez/hci1", reason: "least loaded of 3 adapter(s) that hear it (1/1 links)"))
        #expect(await budget.claim("AA:00:00:00:00:01", seenOn: ["/org/bluez/hci0"], present: Self.all, linked: linked)
            == .use(adapter: "/org/bluez/hci0", reason: "least loaded of 1 adapter(s) that hear it (1/1 links)"))
        // A fleet machine's claim and its own BlueZ link are one link, not two.
        #expect(await budget.load("/org/bluez/hci0", linked: ["AA:00:00:00:00:01"]) == 1)
        #expect(await budget.claim("C", seenOn: ["/org/bluez/hci0", "/org/bluez/hci1"], present: Self.all, linked: linked)
            == .wait(reason: "waiting for a free link: every adapter that hears it is full (hci0 1/1, hci1 1/1)"))
    }

    @Test func onlyAdaptersThatHearItThatAreAllowedAndPresent() async {
        let budget = AdapterBudget(perAdapter: 7, allows: { $0 != "/org/bluez/hci0" })
        #expect(await budget.claim("A", seenOn: ["/org/bluez/hci0"], present: Self.all)
            == .wait(reason: "only adapters the configuration leaves out hear it (hci0)"))
        #expect(await budget.claim("A", seenOn: [], present: Self.all) == .wait(reason: "no adapter hears it"))
        guard case .use(let adapter, _) = await budget.claim("A", seenOn: ["/org/bluez/hci0", "/org/bluez/hci2", "/org/bluez/hci3"], present: Self.all) else {
            Issue.record("no room")
            return
        }
        #expect(adapter == "/org/bluez/hci2")
    }

    @Test func aReconnectStaysAndAMoveSaysWhy() async {
        let budget = AdapterBudget(perAdapter: 1)
        #expect(await budget.claim("A", seenOn: Self.all, present: Self.all) == .use(adapter: "/org/bluez/hci0", reason: "least loaded of 3 adapter(s) that hear it (1/1 links)"))
        await budget.release("A")
        #expect(await budget.claim("A", seenOn: Self.all, present: Self.all) == .use(adapter: "/org/bluez/hci0", reason: "stays on hci0 (1/1 links)"))
        await budget.release("A")
        _ = await budget.claim("B", seenOn: ["/org/bluez/hci0"], present: Self.all)
        #expect(await budget.claim("A", seenOn: Self.all, present: Self.all) == .use(adapter: "/org/bluez/hci1", reason: "moved from hci0, which is full (1/1 links)"))
        await budget.release("A")
        #expect(await budget.claim("A", seenOn: ["/org/bluez/hci2"], present: ["/org/bluez/hci0", "/org/bluez/hci2"])
            == .use(adapter: "/org/bluez/hci2", reason: "moved from hci1, which went away"))
        // Claiming again replaces the claim: a machine never holds two links.
        _ = await budget.claim("A", seenOn: ["/org/bluez/hci2"], present: Self.all)
        #expect(await budget.load("/org/bluez/hci2") == 1)
    }

    /// A waiting supervisor wakes when a link is given back, not only at its recheck: the
    /// wait's own limit is an hour, so only a release ends it before the group's timeout.
    /// The link is taken and given back until the waiter is done, so a release certainly
    /// comes after the waiter began waiting, however late that is.
    @Test func aReleaseWakesAWaiter() async {
        let budget = AdapterBudget(perAdapter: 1)
        _ = await budget.claim("A", seenOn: ["/org/bluez/hci0"], present: Self.all)
        let done = Flag()
        let waiter = Task {
            await budget.waitForRoom(timeout: .seconds(3600))
            done.set()
        }
        await budget.release("A")
        while !done.isSet {
            _ = await budget.claim("A", seenOn: ["/org/bluez/hci0"], present: Self.all)
            await budget.release("A")
            try? await Task.sleep(for: .milliseconds(10))
        }
        await waiter.value
        // A wait that times out leaves nothing behind for the next release to trip over.
        await budget.waitForRoom(timeout: .milliseconds(10))
        await budget.release("nobody")
    }
}

/// The `machine` message's adapter fields, byte for byte as docs/metrics-socket.md shows them.
@Suite("Daemon: machine message adapter fields")
struct MachineMessageAdapterTests {
    static let bike = MachineIdentity(name: "SF-Bike-0004", address: "C0:5F:00:00:00:04", model: nil, type: .bike)

    @Test func connectingSaysWhereAndWhy() {
        let payload = MetricsPayloads.machine(Self.bike, state: "connecting", adapter: "hci2", adapterReason: "moved from hci1, which went away")
        #expect(String(decoding: payload.bytes, as: UTF8.self) == #"{"state":"connecting","name":"SF-Bike-0004","address":"C0:5F:00:00:00:04","type":"bike","adapter":"hci2","adapter_reason":"moved from hci1, which went away"}"#)
    }

    @Test func withoutAdaptersNothingChanges() {
        let payload = MetricsPayloads.machine(Self.bike, state: "disconnected", reason: "the link dropped")
        #expect(String(decoding: payload.bytes, as: UTF8.self) == #"{"state":"disconnected","name":"SF-Bike-0004","address":"C0:5F:00:00:00:04","type":"bike","reason":"the link dropped"}"#)
    }
}

/// Set once, read from any task.
final class Flag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}

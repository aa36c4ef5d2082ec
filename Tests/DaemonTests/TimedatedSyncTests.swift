import BlueZTesting
@testable import Daemon
import DBus
import Synchronization
import Testing
import Workout

/// systemd-timedated's `NTPSynchronized`, read over D-Bus (contract §5): the one way to know the
/// kernel's clock state under the unit's `ProtectClock=`, whatever time daemon runs. A private
/// dbus-daemon with a small fake timedated stands in for the system bus.
@Suite("Daemon: timedated's word on the clock")
struct TimedatedSyncTests {
    /// A fake `org.freedesktop.timedate1` answering Properties.Get with `synchronised`.
    final class FakeTimedated: Sendable {
        let connection: DBusConnection
        let synchronised = Atomic<Bool>(false)
        let reads = Atomic<Int>(0)

        init(bus: PrivateBus) async throws {
            connection = try await DBusConnection.connect(address: bus.address)
            #expect(try await connection.requestName("org.freedesktop.timedate1"))
            try connection.export(path: "/org/freedesktop/timedate1") { [self] call in
                guard call.interface == "org.freedesktop.DBus.Properties", call.member == "Get",
                      call.arguments == [.string("org.freedesktop.timedate1"), .string("NTPSynchronized")]
                else { return call.replier.fail(name: "org.freedesktop.DBus.Error.UnknownProperty", message: "no") }
                self.reads.add(1, ordering: .relaxed)
                call.replier.reply([.variant(.bool(self.synchronised.load(ordering: .relaxed)))])
            }
        }
    }

    @Test func readsNTPSynchronizedFromTimedated() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let fake = try await FakeTimedated(bus: bus)
        defer { fake.connection.close() }
        let timedated = TimedatedSync(address: bus.address)
        #expect(try await timedated.synchronised().get() == false)
        fake.synchronised.store(true, ordering: .relaxed)
        #expect(try await timedated.synchronised().get() == true)
        #expect(fake.reads.load(ordering: .relaxed) == 2)
        await timedated.close()
    }

    /// No timedated on the bus: a reason, not a guess.
    @Test func noTimedatedIsAReason() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let timedated = TimedatedSync(address: bus.address)
        guard case .failure(let problem) = await timedated.synchronised() else {
            Issue.record("an answer from nobody")
            return
        }
        #expect(problem.description.hasPrefix("timedated's NTPSynchronized is unreadable"))
        await timedated.close()
    }

    /// timedated's "synchronised" makes the host's clock trusted even where `adjtimex` and
    /// timesyncd's flag say nothing (the flag's path here is one that does not exist).
    @Test func timedatedsWordTrustsTheClock() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let fake = try await FakeTimedated(bus: bus)
        defer { fake.connection.close() }
        fake.synchronised.store(true, ordering: .relaxed)
        let clock = SystemWallClock(
            boot: nil, floor: UTCTime(secondsSince1970: 946_771_200), synchronisedFlag: "/nonexistent/ftms-bridge/timesync-flag")
        let timedated = TimedatedSync(address: bus.address)
        clock.timedated(synchronised: try await timedated.synchronised().get())
        let judge = clock.judge()
        #expect(judge.trust == .synchronised)
        #expect(clock.now().wallIsTrue)
        await timedated.close()
    }
}

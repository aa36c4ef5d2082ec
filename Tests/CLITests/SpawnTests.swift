import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The tests' one spawner hands a child its standard streams and the descriptors it is given,
/// and nothing else of the test process's.
@Suite("Test support: spawned children")
struct SpawnTests {
    /// A socketpair end without close-on-exec, held by a dbus-daemon or mosquitto that another
    /// test started, would never hang up when its own test closes it (a fresh clone's
    /// DatagramHandlerTests read on after the peer's close and trapped).
    @Test func aChildKeepsOnlyTheDescriptorsItIsGiven() async throws {
        var ends: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &ends) == 0)  // no close-on-exec, on purpose
        defer { close(ends[0]); close(ends[1]) }
        let notGiven = try spawnChild(["/bin/sh", "-c", "test -e /proc/self/fd/\(ends[1])"])
        #expect(await ChildExit.exit(of: notGiven, within: .seconds(60)) == 1)
        let given = try spawnChild(["/bin/sh", "-c", "test -e /proc/self/fd/3"], passing: [ends[1]])
        #expect(await ChildExit.exit(of: given, within: .seconds(60)) == 0)
    }
}

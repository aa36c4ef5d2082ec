@testable import Daemon
import Testing

/// Which advertisements cut a reconnect backoff short: the first after a silence (a machine
/// that woke), never the steady stream of one that advertises and refuses.
@Suite("Daemon: advertisement log")
struct AdvertisementLogTests {
    @Test func theFirstAdvertisementAfterASilenceIsAWake() {
        var log = AdvertisementLog(quiet: .seconds(5))
        // Never heard: a wake.
        let first = log.heard("A", at: .seconds(100))
        #expect(first)
        // Heard again and again, 0.5 s apart: not wakes, however long it goes on.
        var wakes = 0
        for step in 1...40 where log.heard("A", at: .seconds(100) + .milliseconds(500 * step)) { wakes += 1 }
        #expect(wakes == 0)
        // Silent 5 s or more (asleep), then heard: a wake; just under 5 s is not.
        let early = log.heard("A", at: .milliseconds(124_900))
        let woke = log.heard("A", at: .seconds(130))
        #expect(!early && woke)
        // Machines are judged apart.
        let other = log.heard("B", at: .milliseconds(130_500))
        #expect(other)
    }

    @Test func aMachineThatConnectedStartsAfresh() {
        var log = AdvertisementLog(quiet: .seconds(5))
        _ = log.heard("A", at: .seconds(10))
        log.forget("A")
        let again = log.heard("A", at: .seconds(11))
        #expect(again)
    }
}

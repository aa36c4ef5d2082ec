@testable import Daemon
import Testing

/// The fleet's view of one machine's link: which attempts hold discovery off, which machines an
/// advertisement wakes, and the fleet's wake-up that is not lost when nobody waits.
@Suite("Daemon: machine link states")
struct MachineLinkStateTests {
    @Test func onlyAnAttemptOnAMachineJustHeardHoldsDiscoveryOff() {
        var link = MachineLinkState.unlinked
        let action1 = link.attemptStarted(first: true)
        #expect(action1 == .nothing)
        #expect(link.holdsDiscovery)
        let action2 = link.linkUp()
        #expect(action2 == .forgetAdvertisements)
        #expect(link.isLinked && !link.holdsDiscovery)
        let action3 = link.linkDown()
        #expect(action3 == .nothing)
        #expect(link == .unlinked && !link.isLinked)
        let action4 = link.retrying()
        #expect(action4 == .nothing)
        #expect(link.isWaiting)
        // A retry on a machine that stayed silent leaves discovery on.
        let action5 = link.attemptStarted(first: false)
        #expect(action5 == .nothing)
        #expect(!link.holdsDiscovery && !link.isWaiting)
    }

    @Test func anAdvertisementWakesOnlyAMachineBackingOffAndItsNextAttemptHoldsDiscovery() {
        var link = MachineLinkState.linked
        let action6 = link.wokenByAdvertisement()
        #expect(action6 == .nothing)
        #expect(link == .linked)
        link = .unlinked
        let action7 = link.wokenByAdvertisement()
        #expect(action7 == .nothing)
        _ = link.retrying()
        let action8 = link.wokenByAdvertisement()
        #expect(action8 == .wakeSupervisor)
        #expect(link == .backingOff(woken: true) && link.isWaiting)
        _ = link.attemptStarted(first: false)
        #expect(link.holdsDiscovery)
        // Woken once: the attempt after the next failure is a plain retry again.
        _ = link.retrying()
        _ = link.attemptStarted(first: false)
        #expect(!link.holdsDiscovery)
    }

    @Test func aWakeRaisedWithNobodyWaitingIsKeptUntilTaken() async {
        var signal = WakeSignal.quiet
        let waiter = signal.raise()
        #expect(waiter == nil)
        await withCheckedContinuation { continuation in
            // Raised before the wait: the waiter is handed back to be resumed at once.
            let handedBack = signal.wait(continuation)
            #expect(handedBack != nil)
            (handedBack ?? signal.release())?.resume()
        }
        let taken = signal.take()
        #expect(taken)
        let again = signal.take()
        #expect(!again)
    }

    @Test func aParkedWaiterIsHandedBackByRaiseOrRelease() async {
        var signal = WakeSignal.quiet
        await withCheckedContinuation { continuation in
            let handedBack = signal.wait(continuation)
            #expect(handedBack == nil)
            let parked = signal.raise()
            #expect(parked != nil)
            (parked ?? handedBack)?.resume()
        }
        let raised = signal.take()
        #expect(raised)
        await withCheckedContinuation { continuation in
            let handedBack = signal.wait(continuation)
            #expect(handedBack == nil)
            let parked = signal.release()
            #expect(parked != nil)
            (parked ?? handedBack)?.resume()
        }
        let released = signal.take()
        #expect(!released)
    }
}

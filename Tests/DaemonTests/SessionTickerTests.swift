import TestSupport
@testable import Daemon
import Foundation
import Testing

/// `SessionTicker`: one timer for every open session. A registered session is ticked until a
/// tick says it closed; one that registers again while that tick is answering stays.
@Suite("Daemon: one session timer for the fleet")
struct SessionTickerTests {
    /// A stand-in session: counts its ticks, answers `open`, and may register again mid-tick.
    actor Session: SessionTicked {
        private(set) var ticks = 0
        var open = true
        var registerAgainOnClose: SessionTicker?

        func tick() async -> Bool {
            ticks += 1
            if !open, let ticker = registerAgainOnClose {
                registerAgainOnClose = nil
                open = true
                await ticker.register(self)
                return false
            }
            return open
        }

        func close() { open = false }
        func reopenDuringClosingTick(on ticker: SessionTicker) {
            open = false
            registerAgainOnClose = ticker
        }
    }

    @Test func ticksEveryRegisteredSessionUntilATickFindsItClosed() async throws {
        let ticker = SessionTicker(interval: .milliseconds(20), timers: ContinuousClock())
        let (first, second) = (Session(), Session())
        await ticker.register(first)
        await ticker.register(second)
        await ticker.register(second)  // again: still one registration's worth of ticks
        #expect(try await eventually {
            let (a, b) = (await first.ticks, await second.ticks)
            return a >= 3 && b >= 3
        })
        await first.close()
        #expect(try await eventually {
            let (a, b) = (await first.ticks, await second.ticks)
            return b >= a + 3
        })
        // Dropped after the tick that found it closed: no tick since.
        let stopped = await first.ticks
        try await Task.sleep(for: .milliseconds(150))
        let (last, other) = (await first.ticks, await second.ticks)
        #expect(last == stopped)
        #expect(other > stopped + 3)
        await ticker.unregister(second)
    }

    @Test func aSessionThatRegistersAgainDuringItsClosingTickStays() async throws {
        let ticker = SessionTicker(interval: .milliseconds(20), timers: ContinuousClock())
        let session = Session()
        await ticker.register(session)
        #expect(try await eventually { await session.ticks >= 2 })
        await session.reopenDuringClosingTick(on: ticker)
        let before = await session.ticks
        // The closing tick answered false, but the registration made meanwhile keeps it ticked.
        #expect(try await eventually { await session.ticks >= before + 4 })
        await ticker.unregister(session)
    }
}

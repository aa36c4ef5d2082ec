@testable import Daemon
import Testing
import Upload
import Workout

/// The sources of true time below a trusted system clock (contract §5): the backend's `Date`,
/// narrowed answer by answer, dating sessions while the system clock reads 2000, and giving way
/// to the system clock as soon as it is trusted.
@Suite("Daemon: the backend's Date as a source of true time")
struct WallClockSourcesTests {
    static let floor = WallClockJudgeTests.floor
    static let y2000 = WallClockJudgeTests.y2000
    static let now = WallClockJudgeTests.now

    /// An answer sent at boottime `sent` s and received at `received` s, from a backend whose
    /// clock reads `truth` at boottime 0 (its `Date` is the second it wrote the answer in,
    /// written at `written` s).
    static func sample(sent: Double, written: Double, received: Double, truth: UTCTime = now) -> BackendDateSample {
        let date = truth.adding(nanoseconds: Int64(written * 1e9))
        return BackendDateSample(
            date: UTCTime(millisecondsSince1970: date.millisecondsSince1970 / 1000 * 1000),
            sentAt: .milliseconds(Int64(sent * 1000)), receivedAt: .milliseconds(Int64(received * 1000)))
    }

    /// Clock at 2000 for ever, never synchronised: one answer dates sessions within a second and
    /// the round trip, while the system clock itself stays untrusted and `status` says so.
    @Test func theBackendsDateDatesSessionsWhileTheClockReads2000() throws {
        var judge = WallClockJudge(floor: Self.floor)
        judge.judge(WallClockJudgeTests.reading(100, from: Self.y2000))
        #expect(!judge.datesAreTrue)
        #expect(judge.source == nil)
        let answer = Self.sample(sent: 100.0, written: 100.05, received: 100.1)
        let tookAnswer = judge.learn(backend: answer.offsetBounds, at: answer.receivedAt)
        #expect(tookAnswer)
        judge.judge(WallClockJudgeTests.reading(101, from: Self.y2000))
        #expect(!judge.isTrusted, "the system clock still reads 2000")
        #expect(judge.source == .backend)
        let offset = try #require(judge.datingOffset)
        let truth = Self.now.millisecondsSince1970
        #expect(abs(offset - truth) <= 1100, "within a second and half the round trip: \(offset - truth) ms")
        #expect(try #require(judge.referenceUncertainty) <= 1100)
        #expect(judge.explanation.contains("before 2026-11-01"))
        #expect(judge.explanation.contains("dated by the backend's clock"))
    }

    /// Answers that fall at different points of their second narrow the interval: from ±1.05 s
    /// after the first to about half a second.
    @Test func answersNarrowTheEstimate() throws {
        var judge = WallClockJudge(floor: Self.floor)
        for (index, written) in [10.95, 21.05, 32.5, 43.99].enumerated() {
            let answer = Self.sample(sent: written - 0.02, written: written, received: written + 0.02)
            let tookAnswer = judge.learn(backend: answer.offsetBounds, at: answer.receivedAt)
            #expect(tookAnswer, "answer \(index)")
        }
        let uncertainty = try #require(judge.referenceUncertainty)
        #expect(uncertainty <= 600, "±\(uncertainty) ms after four answers")
        #expect(abs(try #require(judge.datingOffset) - Self.now.millisecondsSince1970) <= 600)
    }

    /// A backend whose clock reads before this build is no reference; one that disagrees with
    /// what was learned (its clock was set since) replaces it rather than emptying it.
    @Test func aBackendBeforeTheFloorIsRefusedAndADisagreementReplaces() throws {
        var judge = WallClockJudge(floor: Self.floor)
        let wrong = Self.sample(sent: 10, written: 10.1, received: 10.2, truth: Self.y2000)
        let tookWrong = judge.learn(backend: wrong.offsetBounds, at: wrong.receivedAt)
        #expect(!tookWrong)
        #expect(judge.reference == nil)
        let first = Self.sample(sent: 10, written: 10.1, received: 10.2)
        judge.learn(backend: first.offsetBounds, at: first.receivedAt)
        let moved = Self.sample(sent: 20, written: 20.1, received: 20.2, truth: Self.now.adding(seconds: 30))
        let tookMoved = judge.learn(backend: moved.offsetBounds, at: moved.receivedAt)
        #expect(tookMoved)
        #expect(abs(try #require(judge.datingOffset) - Self.now.adding(seconds: 30).millisecondsSince1970) <= 1100)
    }

    /// Contract §5's order: a synchronised (or stepped) system clock dates sessions, not the backend.
    @Test func aTrustedSystemClockComesFirst() throws {
        var judge = WallClockJudge(floor: Self.floor)
        let answer = Self.sample(sent: 10, written: 10.1, received: 10.2, truth: Self.now.adding(seconds: 5))
        judge.learn(backend: answer.offsetBounds, at: answer.receivedAt)
        judge.judge(WallClockJudgeTests.reading(11, from: Self.now, synchronised: true))
        #expect(judge.source == .synchronised)
        #expect(judge.datingOffset == judge.offset)
        #expect(judge.explanation == "synchronised")
    }
}

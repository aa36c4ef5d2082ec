import Testing
import Workout
@testable import Store

/// The store's health as a state machine, without a store: each transition's new state and what
/// it lets the store write. The stores that drive these transitions are in FullStoreTests
/// (a full disk and the reserve), StoreBackingTests (a read-only card, memory written out) and
/// StoreKeeperTests (damage moved aside while the daemon runs).
@Suite("Store health transitions")
struct StoreHealthTests {
    static let full = WriteFailure(cause: .full, detail: "database or disk is full")
    static let readOnly = WriteFailure(cause: .readOnly, detail: "attempt to write a readonly database")
    static let damaged = WriteFailure(cause: .damaged, detail: "database disk image is malformed")
    static let ioError = WriteFailure(cause: .ioError, detail: "disk I/O error")
    static let t0 = UTCTime(secondsSince1970: 1_795_248_000)
    static let t1 = t0.adding(seconds: 30)
    static let reserveBytes: Int64 = 64 << 10

    @Test func aFailureIsDatedByItsFirstRefusalAndASuccessEndsIt() {
        var health = StoreHealth.sound(reserve: .held)
        #expect(health.writes == .all && health.writable && health.failingSince == nil)
        #expect(health.writeFailed(Self.ioError, at: Self.t0) == .all, "a failing store still tries every write")
        #expect(health == .failing(Self.ioError, since: Self.t0, reserve: .held))
        #expect(!health.writable && health.problem == Self.ioError)
        _ = health.writeFailed(Self.damaged, at: Self.t1)
        #expect(health.failingSince == Self.t0, "still failing since the first refusal")
        #expect(health.failure == Self.damaged, "the last refusal names the cause")
        #expect(health.writeSucceeded(room: nil, reserveBytes: Self.reserveBytes) == .all)
        #expect(health == .sound(reserve: .held))
    }

    /// After a full disk, a success proves the store writable only with room for the reserve:
    /// a write that found room in the WAL's old frames does not end the failure.
    @Test func aFullDiskRecoversOnlyWithRoom() {
        var health = StoreHealth.failing(Self.full, since: Self.t0, reserve: .held)
        _ = health.writeSucceeded(room: 4096, reserveBytes: Self.reserveBytes)
        #expect(health == .failing(Self.full, since: Self.t0, reserve: .held))
        _ = health.writeSucceeded(room: nil, reserveBytes: Self.reserveBytes)
        #expect(!health.writable, "free space unknown is no proof")
        _ = health.writeSucceeded(room: Self.reserveBytes, reserveBytes: Self.reserveBytes)
        #expect(health == .sound(reserve: .held))
    }

    /// Released ⇒ periodic writes refused: the transition says so, and it stays so through
    /// successes and further failures, until the reserve is made again.
    @Test func aReleasedReserveLetsOnlyWritesThatKeepASession() {
        var health = StoreHealth.sound(reserve: .held)
        _ = health.writeFailed(Self.full, at: Self.t0)
        #expect(health.writes == .all, "a full disk alone refuses nothing before it is tried")
        #expect(health.reserveReleased(for: Self.full, at: Self.t1) == .keepingOnly(Self.full))
        #expect(health == .reserveReleased(Self.full, since: Self.t0))
        #expect(health.reserve == .released && health.wantsReserve && !health.writable)
        #expect(health.writeSucceeded(room: 1 << 30, reserveBytes: Self.reserveBytes) == .keepingOnly(Self.full))
        #expect(health.writeFailed(Self.ioError, at: Self.t1) == .keepingOnly(Self.ioError))
        #expect(health.failingSince == Self.t0)
        // Made again: every write is tried; the store is writable once one proves it.
        #expect(health.reserveMade() == .all)
        #expect(health == .failing(Self.ioError, since: Self.t0, reserve: .held))
        _ = health.writeSucceeded(room: nil, reserveBytes: Self.reserveBytes)
        #expect(health == .sound(reserve: .held))
    }

    @Test func aMissingReserveIsNoFailureAndIsWanted() {
        var health = StoreHealth.sound(reserve: .missing)
        #expect(health.writable && health.wantsReserve)
        #expect(health.reserveMade() == .all)
        #expect(health == .sound(reserve: .held) && !health.wantsReserve)
        #expect(!StoreHealth.sound(reserve: .none).wantsReserve, "a command's store keeps none")
    }

    /// A card gone read-only: the refusal asks for memory; in memory the store is not writable
    /// (its writes land in memory), and back on the file a read-only refusal is over.
    @Test func aReadOnlyCardMovesTheStoreIntoMemoryAndBack() {
        var health = StoreHealth.sound(reserve: .held)
        _ = health.writeFailed(Self.readOnly, at: Self.t0)
        #expect(health.fileIsReadOnly == Self.readOnly)
        #expect(health.movedIntoMemory(because: Self.readOnly, at: Self.t1) == .all)
        #expect(health.inMemory == Self.readOnly && health.fileIsReadOnly == nil, "moved once")
        #expect(health.failingSince == Self.t0, "unable to reach the disk since the first refusal")
        _ = health.writeSucceeded(room: nil, reserveBytes: Self.reserveBytes)
        #expect(!health.writable && health.failure == nil && health.problem == Self.readOnly)
        #expect(health.backOnFile() == .all)
        #expect(health == .sound(reserve: .held))
        #expect(health.backOnFile() == .all && health == .sound(reserve: .held), "on the file already: nothing changes")
    }

    @Test func aStoreStartedInMemoryIsUnwritableFromItsStart() {
        var health = StoreHealth.inMemory(Self.readOnly, since: Self.t0, file: .sound(reserve: .missing))
        #expect(!health.writable && health.problem == Self.readOnly && health.failingSince == Self.t0)
        #expect(health.reserve == .missing)
        _ = health.backOnFile()
        #expect(health == .sound(reserve: .missing))
    }

    /// A damaged file replaced while the disk is full passes through memory: back on the fresh
    /// file, the full disk and its released reserve are still there, and periodic writes still
    /// refused.
    @Test func damageMovedAsideKeepsAFullDisksState() {
        var health = StoreHealth.reserveReleased(Self.full, since: Self.t0)
        #expect(health.movedIntoMemory(because: Self.damaged, at: Self.t1) == .keepingOnly(Self.full))
        #expect(health.inMemory == Self.damaged && health.failure == Self.full && health.reserve == .released)
        #expect(health.backOnFile() == .keepingOnly(Self.full))
        #expect(health == .reserveReleased(Self.full, since: Self.t0))

        var failing = StoreHealth.failing(Self.damaged, since: Self.t0, reserve: .held)
        _ = failing.movedIntoMemory(because: Self.damaged, at: Self.t1)
        _ = failing.backOnFile()
        #expect(failing == .sound(reserve: .held), "the fresh file was just written whole: recovered")
    }
}

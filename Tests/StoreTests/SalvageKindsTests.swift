import TestSupport
import Foundation
import GRDB
import Testing
import Workout
@testable import Store

/// Issue 36's bar for salvage, on a real store of 8 finished rides, not uploaded yet, as the
/// daemon stores them (one at a time, each with its second copy in the session journal): for
/// each kind of damage, every ride whose session row survives anywhere in the file comes back
/// (the page scan reads past the B-tree), and while the journal survives, every ride comes
/// back whatever happened to the database. Both counts are printed per kind.
@Suite("Salvage by kind of damage")
struct SalvageKindsTests {
    enum Kind: String, CaseIterable, Sendable {
        /// Page 1 (header and schema) overwritten: the session rows are intact.
        case firstPage
        /// The page in the middle of the file overwritten.
        case middlePage
        /// The last page overwritten.
        case lastPage
        /// The file cut at half its pages.
        case cutInHalf
        /// The first leaf of the sessions table zeroed.
        case sessionsLeafZeroed
        /// Every byte zero.
        case zeroed
    }

    static let rides = 8

    /// Damages the file as `kind` says; returns the pages whose bytes are gone.
    static func damage(_ path: String, _ kind: Kind, _ layout: DamageTests.Layout) throws -> Set<Int> {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        func overwrite(_ page: Int, _ byte: UInt8) throws {
            try handle.seek(toOffset: UInt64((page - 1) * layout.pageSize))
            try handle.write(contentsOf: Data(repeating: byte, count: layout.pageSize))
        }
        switch kind {
        case .firstPage:
            try overwrite(1, 0x5A)
            return [1]
        case .middlePage:
            let page = max(2, (layout.pageCount + 1) / 2)
            try overwrite(page, 0xFF)
            return [page]
        case .lastPage:
            try overwrite(layout.pageCount, 0xFF)
            return [layout.pageCount]
        case .cutInHalf:
            let kept = layout.pageCount / 2
            try handle.truncate(atOffset: UInt64(kept * layout.pageSize))
            return Set((kept + 1)...layout.pageCount)
        case .sessionsLeafZeroed:
            let leaf = try #require(layout.sessionLeaves.keys.min())
            try overwrite(leaf, 0)
            return [leaf]
        case .zeroed:
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: Data(count: layout.pageCount * layout.pageSize))
            return Set(1...layout.pageCount)
        }
    }

    /// Makes the store, damages it, opens it as the daemon does (moving it aside) and salvages;
    /// returns the rides in the queue afterwards and the rides whose rows survived.
    static func ridesBack(_ kind: Kind, journal: Bool) async throws -> (back: Int, surviving: Int, report: SalvageReport?) {
        let directory = try TemporaryDirectory(prefix: "ftms-kinds")
        let path = directory.file(GatewayStore.fileName)
        let store = try GatewayStore(directory: directory.path)
        for number in 0..<rides {
            try await store.enqueue(Sessions.summary(number, offset: number * 3600, distance: 5000 + number))
        }
        try store.close()
        let layout = try DamageTests.Layout(path)
        #expect(layout.sessionLeaves.values.reduce(0, +) == rides)
        let gone = try damage(path, kind, layout)
        let surviving = layout.sessionLeaves.filter { !gone.contains($0.key) }.values.reduce(0, +)
        if !journal { try FileManager.default.removeItem(atPath: directory.file(SessionJournal.fileName)) }

        let (fresh, moved) = try GatewayStore.openMovingDamagedAside(directory: directory.path, clock: ManualClock.atOrigin().wall)
        let movedPath = try #require(moved?.path)
        var report: SalvageReport?
        do {
            report = try await fresh.salvage(from: movedPath)
        } catch {
            #expect(surviving == 0, "salvage found nothing where \(surviving) rows survive: \(error)")
        }
        // Again: nothing new.
        if let again = try? await fresh.salvage(from: movedPath) {
            #expect(again.queuedPending == 0 && again.queuedUploaded == 0 && again.requeuedFromJournal == 0)
        }
        let sessions = try await fresh.sessions()
        for session in sessions {
            let number = try #require(Int(session.sessionID.suffix(12)))
            #expect(session.totalDistance == 5000 + number, "the ride as it was stored")
            #expect(session.status == .pending)
        }
        #expect(Set(sessions.map(\.sessionID)).count == sessions.count)
        return (sessions.count, surviving, report)
    }

    @Test(arguments: Kind.allCases)
    func everyRideWhoseRowSurvivesComesBack(_ kind: Kind) async throws {
        let (back, surviving, report) = try await Self.ridesBack(kind, journal: false)
        print("salvage without the journal, \(kind.rawValue): \(back) of \(Self.rides) rides back (\(surviving) rows survive)")
        #expect(back >= surviving)
        if kind == .firstPage { #expect(report?.unreadableBySQLite == true && back == Self.rides) }
    }

    @Test(arguments: Kind.allCases)
    func noRideIsLostWhileItsSecondCopySurvives(_ kind: Kind) async throws {
        let (back, _, _) = try await Self.ridesBack(kind, journal: true)
        print("salvage with the journal, \(kind.rawValue): \(back) of \(Self.rides) rides back")
        #expect(back == Self.rides)
    }
}

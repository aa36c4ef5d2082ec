import TestSupport
import Foundation
import Testing
@testable import Store

/// contract §6: opening a corrupt, unreadable or newer database is a one-line error; the store
/// never silently starts empty in its place, and never touches the bad file (only the daemon's
/// open moves a *damaged* one aside: DamageTests).
@Suite("Store refuses bad databases")
struct RefusalTests {
    func expectRefusal(_ directory: TemporaryDirectory, matching fragment: String, refusing: Bool = true) throws {
        let path = directory.file(GatewayStore.fileName)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            _ = try GatewayStore(directory: directory.path)
            Issue.record("a bad database opened")
        } catch let error as StoreError {
            let line = error.description
            #expect(!line.contains("\n"))
            #expect(line.contains(fragment), "\(line)")
            #expect(line.contains("refusing to start") == refusing, "\(line)")
            #expect(!line.contains("move it aside"), "\(line)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the bad file was modified")
    }

    @Test func aFileThatIsNotADatabase() throws {
        let directory = try TemporaryDirectory()
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: directory.file(GatewayStore.fileName)))
        try expectRefusal(directory, matching: "is damaged (file is not a database)", refusing: false)
    }

    /// A real database with a damaged page: the header is intact, so SQLite opens it, and
    /// the integrity check at open is what catches it.
    @Test func aDamagedPage() async throws {
        let directory = try TemporaryDirectory()
        do {
            let store = try GatewayStore(directory: directory.path)
            for number in 0..<300 { try await store.enqueue(Sessions.summary(number, offset: number * 60)) }
            try store.close()
        }
        let path = directory.file(GatewayStore.fileName)
        // The WAL is folded into the file by close(); overwrite the file's middle.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = try handle.seekToEnd()
        #expect(size > 16_384)
        try handle.seek(toOffset: size / 2)
        try handle.write(contentsOf: Data(repeating: 0xFF, count: 4096))
        try handle.close()
        try expectRefusal(directory, matching: "is damaged", refusing: false)
    }

    @Test func aDatabaseFromANewerBuild() async throws {
        let directory = try TemporaryDirectory()
        do {
            let store = try GatewayStore(directory: directory.path)
            try await store.database.write { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
            }
            try store.close()
        }
        try expectRefusal(directory, matching: "v99-from-the-future")
    }

    @Test func aStateDirectoryThatIsAFile() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("not-a-directory")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: StoreError.directory(path: file, reason: "not a directory")) {
            _ = try GatewayStore(directory: file)
        }
    }
}

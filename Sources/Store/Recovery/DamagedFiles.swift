import Foundation
import ProcessOutput
public import Workout

#if canImport(Glibc)
import Glibc
#endif

/// A damaged state database moved aside, still in the state directory under its new name.
public struct DamagedFile: Sendable, Hashable {
    public var path: String
    /// When it was moved aside (from its name).
    public var movedAt: UTCTime?
}

/// Where damaged databases go: renamed in place, never deleted, `ftms-bridge.sqlite` becoming
/// `ftms-bridge.sqlite.damaged-20261121T080000Z` (its `-wal` and `-shm` alike, so SQLite finds
/// its WAL under the new name), until `ftms-bridge salvage` has read them and renames them
/// `….salvaged-…`. A name in the state directory is the one record of a move that survives
/// restarts, so `status` and `doctor` read it from the directory.
public enum DamagedFiles {
    static let damagedInfix = ".damaged-"
    static let salvagedInfix = ".salvaged-"

    /// Moves `path` (and its `-wal`, `-shm`) aside; returns the new path of the database file.
    static func moveAside(_ path: String, at time: UTCTime) throws -> String {
        try rename(path, infix: damagedInfix, stamp: stamp(time))
    }

    /// Renames a damaged file that was salvaged, so that status and doctor stop pointing at it.
    /// Returns the new path.
    public static func markSalvaged(_ path: String, at time: UTCTime) throws -> String {
        guard let range = path.range(of: damagedInfix, options: .backwards) else { return path }
        let base = String(path[..<range.lowerBound])
        return try rename(path, to: base, infix: salvagedInfix, stamp: stamp(time))
    }

    /// The damaged databases in `directory` not salvaged yet, oldest first.
    public static func list(in directory: String) -> [DamagedFile] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let prefix = GatewayStore.fileName + damagedInfix
        return names.filter { $0.hasPrefix(prefix) && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.sorted().map { name in
            let stamp = name.dropFirst(prefix.count).prefix(16)
            return DamagedFile(path: (directory as NSString).appendingPathComponent(name), movedAt: time(of: stamp))
        }
    }

    /// Whether `path` is named as a file the daemon moved aside.
    public static func isDamagedName(_ path: String) -> Bool {
        (path as NSString).lastPathComponent.hasPrefix(GatewayStore.fileName + damagedInfix)
    }

    private static func rename(_ path: String, to base: String? = nil, infix: String, stamp: String) throws -> String {
        let base = base ?? path
        var target = base + infix + stamp
        var number = 2
        while FileManager.default.fileExists(atPath: target) {
            target = base + infix + stamp + "-\(number)"
            number += 1
        }
        // The WAL goes first: a fresh database must never meet the damaged one's WAL under
        // the old name, and the damaged one needs it under the new.
        var moved: [String] = []
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            guard Glibc.rename(path + suffix, target + suffix) == 0 else {
                let reason = "cannot rename its \(suffix) to \(target + suffix): \(errnoText(errno))"
                for done in moved { _ = Glibc.rename(target + done, path + done) }
                throw StoreError.directory(path: path, reason: reason)
            }
            moved.append(suffix)
        }
        guard Glibc.rename(path, target) == 0 else {
            let reason = "cannot rename it to \(target): \(errnoText(errno))"
            for done in moved { _ = Glibc.rename(target + done, path + done) }
            throw StoreError.directory(path: path, reason: reason)
        }
        return target
    }

    /// `20261121T080000Z`: the time in a file name, sorting as it reads.
    static func stamp(_ time: UTCTime) -> String {
        time.iso8601.filter { $0 != "-" && $0 != ":" }
    }

    private static func time(of stamp: Substring) -> UTCTime? {
        let characters = Array(stamp)
        guard characters.count == 16 else { return nil }
        let text = "\(String(characters[0..<4]))-\(String(characters[4..<6]))-\(String(characters[6..<11])):\(String(characters[11..<13])):\(String(characters[13..<16]))"
        return UTCTime(iso8601: text)
    }
}

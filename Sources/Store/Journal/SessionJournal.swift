import Foundation
import JSON
import ProcessOutput
import Synchronization
import Workout

#if canImport(Glibc)
import Glibc
#endif

/// The second durable copy of every finished session the backend has not acknowledged yet: an
/// append-only file beside the database, `ftms-bridge.journal`, so that a ride is never in one
/// file only (contract §6). A power cut that takes the database (a zeroed file, a lost page, a
/// file cut short) leaves the journal, a different file on other blocks; the store's open puts
/// back in the queue every session the journal holds and the database does not.
///
/// Each record is `FTJ1`, the payload's length and CRC-32 (big-endian, 4 bytes each) and the
/// payload: one JSON object with the session as uploaded (its id included, so the backend never
/// counts it twice), where it was recorded, and its place on its boot's clock when its dates
/// wait for a true one. A record is appended in one `write` after the database's commit, and
/// the file fsynced (the directory too when the file is new) before the session counts as
/// stored. Appending after the commit means a full disk fails the database's write first, with
/// the reserve's room still there for it (``StoreReserve``): the journal never takes room a
/// session needs, and a journal that cannot grow costs the second copy, never the session.
///
/// Once the backend has acknowledged sessions, their records go: the file is rewritten without
/// them (to a new file, fsynced, renamed over, the directory fsynced), so it holds what is
/// pending and stays small. Writers in several processes (the daemon, `ftms-bridge salvage`)
/// take an `flock` on the file; one that finds the file renamed under it opens it again.
///
/// A record cut short (a torn append) or damaged is skipped with a one-line warning, and the
/// reading goes on at the next record's mark.
public final class SessionJournal: Sendable {
    public static let fileName = "ftms-bridge.journal"
    static let magic: [UInt8] = Array("FTJ1".utf8)
    /// A record longer than this is taken for damage (a summary is a few KB).
    static let maxPayload = 4 << 20

    public let path: String
    let directory: String
    /// Serialises this process's writers; holds the last append's failure, if it failed.
    private let lock = Mutex<String?>(nil)

    /// One session as the journal keeps it.
    public struct Entry: Sendable, Hashable {
        public var record: SessionRecord
        public var origin: SessionOrigin

        public init(record: SessionRecord, origin: SessionOrigin = .gateway) {
            self.record = record
            self.origin = origin
        }
    }

    /// What a read found: the sessions, oldest first, one per id, and a line per damaged stretch.
    public struct Contents: Sendable {
        public var entries: [Entry] = []
        public var warnings: [String] = []
    }

    public init(directory: String) {
        self.directory = directory
        path = directory.hasSuffix("/") ? directory + Self.fileName : directory + "/" + Self.fileName
    }

    /// Appends `entries` in one write and syncs them to the disk. Throws with the file system's
    /// reason; the file is then as it was.
    public func append(_ entries: [Entry]) throws {
        guard !entries.isEmpty else { return }
        let bytes = entries.flatMap(Self.encode)
        try lock.withLock { failure in
            do {
                let (descriptor, created) = try openLocked(flags: O_WRONLY | O_APPEND | O_CREAT)
                defer { close(descriptor) }
                let size = lseek(descriptor, 0, SEEK_END)
                guard DurableFile.writeAll(descriptor, bytes), fsync(descriptor) == 0 else {
                    let code = errno
                    if size >= 0 { _ = ftruncate(descriptor, size) }
                    throw StoreError.directory(path: path, reason: "cannot append to the session journal: \(FileAccess.errnoLine(code))")
                }
                if created { try syncDirectory() }
                failure = nil
            } catch {
                failure = "\(error)"
                throw error
            }
        }
    }

    /// Why the last append failed, while it is the last: the sessions since have one copy only.
    public var lastFailure: String? { lock.withLock { $0 } }

    /// Every whole record in the file; no file is an empty journal.
    public func read() -> Contents {
        lock.withLock { _ in
            guard let data = FileManager.default.contents(atPath: path) else { return Contents() }
            return Self.decode(Array(data), name: path)
        }
    }

    /// The session ids the file holds, in order, without decoding their JSON.
    public func sessionIDs() -> [String] {
        lock.withLock { _ in
            guard let data = FileManager.default.contents(atPath: path) else { return [] }
            return Self.live(Self.frames(Array(data), name: path).frames).map(\.sessionID)
        }
    }

    /// Drops the sessions in `acknowledged`. A small file is rewritten without their records
    /// (copied as they are, never decoded); a large one gets an acknowledgement record appended
    /// (their ids, fsynced), and is rewritten without them all once half its sessions or more
    /// are acknowledged: a long backlog going up batch by batch costs the card one small append
    /// per batch and a few rewrites, not a rewrite per batch. Either way an acknowledged session
    /// is never put back in the queue.
    public func remove(_ acknowledged: Set<String>) throws {
        guard !acknowledged.isEmpty else { return }
        try lock.withLock { _ in
            guard FileManager.default.fileExists(atPath: path) else { return }
            let (descriptor, _) = try openLocked(flags: O_RDWR | O_APPEND)
            defer { close(descriptor) }
            guard let data = FileManager.default.contents(atPath: path) else { return }
            let bytes = Array(data)
            let (frames, warnings) = Self.frames(bytes, name: path)
            let live = Self.live(frames)
            let newly = Set(live.map(\.sessionID)).intersection(acknowledged)
            guard !newly.isEmpty || !warnings.isEmpty else { return }
            let kept = live.filter { !newly.contains($0.sessionID) }
            let sessions = frames.count(where: { !$0.sessionID.isEmpty })
            if bytes.count <= Self.compactAlways || 2 * kept.count <= sessions || !warnings.isEmpty {
                try replace(with: kept.flatMap { bytes[$0.record] })
                return
            }
            let record = Self.encodeAcknowledgement(newly.sorted())
            let size = lseek(descriptor, 0, SEEK_END)
            guard DurableFile.writeAll(descriptor, record), fsync(descriptor) == 0 else {
                let code = errno
                if size >= 0 { _ = ftruncate(descriptor, size) }
                throw StoreError.directory(path: path, reason: "cannot append to the session journal: \(FileAccess.errnoLine(code))")
            }
        }
    }

    /// Up to this size the file is rewritten whenever a session in it is acknowledged.
    static let compactAlways = 64 << 10

    /// Empties the journal (logout's wipe: the sessions it kept are gone with the account).
    public func removeAll() throws {
        try lock.withLock { _ in
            guard FileManager.default.fileExists(atPath: path) else { return }
            let (descriptor, _) = try openLocked(flags: O_RDONLY)
            defer { close(descriptor) }
            try replace(with: [])
        }
    }

    // MARK: the file

    /// Opens the journal and takes its lock, again if a compaction renamed a new file over the
    /// one opened while waiting for the lock. Returns whether the file was made.
    private func openLocked(flags: Int32) throws -> (Int32, Bool) {
        for _ in 0..<8 {
            let existed = FileManager.default.fileExists(atPath: path)
            let descriptor = open(path, flags | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw StoreError.directory(path: path, reason: "cannot open the session journal: \(FileAccess.errnoLine(errno))")
            }
            guard flock(descriptor, LOCK_EX) == 0 else {
                let code = errno
                close(descriptor)
                throw StoreError.directory(path: path, reason: "cannot lock the session journal: \(FileAccess.errnoLine(code))")
            }
            var opened = stat()
            var named = stat()
            if fstat(descriptor, &opened) == 0, stat(path, &named) == 0, opened.st_ino == named.st_ino, opened.st_dev == named.st_dev {
                return (descriptor, !existed)
            }
            close(descriptor)
        }
        throw StoreError.directory(path: path, reason: "the session journal keeps being replaced under this process")
    }

    /// Writes `bytes` to a new file, syncs it, renames it over the journal and syncs the
    /// directory, so the journal is at every instant the old file or the new one, whole.
    private func replace(with bytes: [UInt8]) throws {
        if let reason = DurableFile.replace(path, with: bytes) {
            throw StoreError.directory(path: path, reason: "cannot write the compacted session journal: \(reason)")
        }
    }

    private func syncDirectory() throws {
        if let reason = DurableFile.syncDirectory(of: path) {
            throw StoreError.directory(path: directory, reason: "cannot sync the session journal's name: \(reason)")
        }
    }

    // MARK: records

    /// One record: mark, length, CRC-32, payload. The payload starts with the session id (its
    /// length in one byte, then its bytes), so compaction and the open find which sessions a
    /// file holds without decoding their JSON; the JSON object follows.
    static func encode(_ entry: Entry) -> [UInt8] {
        var fields: [(String, JSONValue)] = [("origin", .string(entry.origin.rawValue))]
        if let session = try? JSONReader.read(entry.record.json) { fields.append(("session", session)) }
        if let timing = entry.record.timing {
            var clock: [(String, JSONValue)] = [("start_ms", .integer(SessionDates.milliseconds(timing.start))), ("true", .bool(timing.datesAreTrue))]
            if let boot = timing.boot { clock.append(("boot", .string(boot.value))) }
            fields.append(("timing", .object(JSONObject(clock))))
        }
        let id = Array(entry.record.sessionID.utf8.prefix(255))
        let payload = [UInt8(id.count)] + id + JSONWriter.bytes(.object(JSONObject(fields)))
        return magic + bigEndian(UInt32(payload.count)) + bigEndian(CRC32.checksum(payload)) + payload
    }

    /// A whole record's place in the file: a session's (its id), or an acknowledgement's (the
    /// ids it acknowledges, and an empty id).
    struct Frame: Sendable, Hashable {
        var sessionID: String
        var record: Range<Int>
        var json: Range<Int>
        var acknowledged: [String] = []
    }

    /// The session records no acknowledgement in the file names.
    static func live(_ frames: [Frame]) -> [Frame] {
        let acknowledged = Set(frames.flatMap(\.acknowledged))
        return frames.filter { !$0.sessionID.isEmpty && !acknowledged.contains($0.sessionID) }
    }

    /// An acknowledgement record: an empty id (length 0), then the ids, one per line.
    static func encodeAcknowledgement(_ ids: [String]) -> [UInt8] {
        let payload = [UInt8(0)] + Array(ids.joined(separator: "\n").utf8)
        return magic + bigEndian(UInt32(payload.count)) + bigEndian(CRC32.checksum(payload)) + payload
    }

    /// The whole records in `bytes`, without decoding them; a stretch that is not one is skipped
    /// up to the next mark, with one line saying where and how long.
    static func frames(_ bytes: [UInt8], name: String) -> (frames: [Frame], warnings: [String]) {
        var frames: [Frame] = []
        var warnings: [String] = []
        var offset = 0
        while offset < bytes.count {
            if let frame = frame(in: bytes, at: offset) {
                frames.append(frame)
                offset = frame.record.upperBound
                continue
            }
            let next = nextMark(in: bytes, after: offset) ?? bytes.count
            let what = next == bytes.count ? "a record cut short or damaged at its end" : "a damaged record"
            warnings.append("session journal \(name): \(what) (\(next - offset) byte(s) at offset \(offset)) skipped")
            offset = next
        }
        return (frames, warnings)
    }

    /// Every record's session decoded; a session found twice is kept once, the summary that
    /// ends later (seed 002 §7.3: a session the gateway carried on after closing it), else the
    /// first.
    static func decode(_ bytes: [UInt8], name: String) -> Contents {
        let (frames, warnings) = frames(bytes, name: name)
        var contents = Contents(warnings: warnings)
        var seen: [String: Int] = [:]
        for frame in live(frames) {
            guard let entry = entry(Array(bytes[frame.json])) else { continue }
            if let index = seen[frame.sessionID] {
                let kept = contents.entries[index].record.endedAt.secondsSince1970
                if entry.record.endedAt.secondsSince1970 > kept { contents.entries[index] = entry }
                continue
            }
            seen[frame.sessionID] = contents.entries.count
            contents.entries.append(entry)
        }
        return contents
    }

    private static func frame(in bytes: [UInt8], at offset: Int) -> Frame? {
        guard offset + 13 <= bytes.count, Array(bytes[offset..<(offset + 4)]) == magic else { return nil }
        let length = Int(PageScanner.uint32(bytes, at: offset + 4))
        guard length >= 1, length <= maxPayload, offset + 12 + length <= bytes.count else { return nil }
        let payload = (offset + 12)..<(offset + 12 + length)
        guard CRC32.checksum(bytes[payload]) == PageScanner.uint32(bytes, at: offset + 8) else { return nil }
        let idLength = Int(bytes[payload.lowerBound])
        if idLength == 0 {
            let ids = bytes[(payload.lowerBound + 1)..<payload.upperBound].split(separator: UInt8(ascii: "\n")).compactMap {
                String(validating: $0, as: UTF8.self)
            }
            return Frame(sessionID: "", record: offset..<payload.upperBound, json: payload.upperBound..<payload.upperBound, acknowledged: ids)
        }
        guard 1 + idLength <= length, let id = String(validating: bytes[(payload.lowerBound + 1)..<(payload.lowerBound + 1 + idLength)], as: UTF8.self)
        else { return nil }
        return Frame(sessionID: id, record: offset..<payload.upperBound, json: (payload.lowerBound + 1 + idLength)..<payload.upperBound)
    }

    private static func entry(_ payload: [UInt8]) -> Entry? {
        guard let json = try? JSONReader.read(payload), let session = json["session"], let record = SessionRecord(uploaded: session)
        else { return nil }
        var entry = Entry(record: record, origin: json["origin"]?.string.flatMap(SessionOrigin.init(rawValue:)) ?? .gateway)
        if let timing = json["timing"], let start = timing["start_ms"]?.integer {
            entry.record.timing = SessionTiming(
                boot: timing["boot"]?.string.map(BootID.init), start: .milliseconds(start), datesAreTrue: timing["true"]?.bool ?? true)
        }
        return entry
    }

    private static func nextMark(in bytes: [UInt8], after offset: Int) -> Int? {
        var index = offset + 1
        while index + 4 <= bytes.count {
            if bytes[index] == magic[0], bytes[index + 1] == magic[1], bytes[index + 2] == magic[2], bytes[index + 3] == magic[3] { return index }
            index += 1
        }
        return nil
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}

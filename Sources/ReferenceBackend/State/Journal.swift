import ProcessOutput
import FoundationEssentials
import Glibc

/// The state file (`--state FILE`): JSON lines, appended before each answer that changed
/// something, and compacted to one line per live thing at every start and reset.
///
/// Appends use `write(2)` on an `O_APPEND` descriptor: a killed backend loses nothing it has
/// answered for, since the kernel holds the bytes. A torn last line (a write cut by power loss)
/// is dropped at the next start; a bad line elsewhere refuses the start, because silently
/// starting without some sessions would make "exactly once" checks lie. Mode 0600: the file
/// holds the signing key.
final class Journal {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let path: String
    private var descriptor: Int32

    /// The lines of an existing file, or none for a missing one.
    static func read(_ path: String) throws(Journal.Failure) -> [JournalLine] {
        guard access(path, F_OK) == 0 else { return [] }
        guard let data = FileManager.default.contents(atPath: path) else { throw Failure(description: "cannot read state file \(path)") }
        let rows = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        var lines: [JournalLine] = []
        for (index, row) in rows.enumerated() {
            do {
                lines.append(try JSONCoding.decode(JournalLine.self, from: Data(row)))
            } catch where index == rows.count - 1 && data.last != UInt8(ascii: "\n") {
                break  // the torn tail of an interrupted append
            } catch {
                throw Failure(description: "state file \(path) line \(index + 1) is not a state record: \(error)")
            }
        }
        return lines
    }

    /// Writes `snapshot` as the whole file (through a temporary file and a rename), then keeps
    /// the file open for appends.
    init(path: String, snapshot: [JournalLine]) throws(Journal.Failure) {
        self.path = path
        descriptor = try Self.replace(path, with: snapshot)
    }

    deinit {
        close(descriptor)
    }

    func append(_ lines: [JournalLine]) throws(Journal.Failure) {
        guard !lines.isEmpty else { return }
        try Self.write(Self.encode(lines), to: descriptor, path: path)
    }

    func rewrite(_ snapshot: [JournalLine]) throws(Journal.Failure) {
        let fresh = try Self.replace(path, with: snapshot)
        close(descriptor)
        descriptor = fresh
    }

    private static func replace(_ path: String, with snapshot: [JournalLine]) throws(Journal.Failure) -> Int32 {
        let temporary = path + ".tmp"
        let scratch = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard scratch >= 0 else { throw Failure(description: "cannot write \(temporary): \(errnoText(errno))") }
        do throws(Journal.Failure) {
            try write(try encode(snapshot), to: scratch, path: temporary)
            guard fsync(scratch) == 0 else { throw Failure(description: "cannot sync \(temporary)") }
        } catch {
            close(scratch)
            throw error
        }
        close(scratch)
        guard rename(temporary, path) == 0 else { throw Failure(description: "cannot replace \(path): \(errnoText(errno))") }
        let appender = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard appender >= 0 else { throw Failure(description: "cannot open \(path): \(errnoText(errno))") }
        return appender
    }

    private static func encode(_ lines: [JournalLine]) throws(Journal.Failure) -> [UInt8] {
        var bytes: [UInt8] = []
        for line in lines {
            do {
                bytes += try JSONCoding.data(line)
            } catch {
                throw Failure(description: "cannot encode a state record: \(error)")
            }
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    private static func write(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(Journal.Failure) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot append to \(path): \(errnoText(errno))")
            }
            offset += written
        }
    }
}

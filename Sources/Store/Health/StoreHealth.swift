public import Workout

/// Whether the store can write now, and why not: what `status`, `STATUS=`, Prometheus and the
/// MQTT `store` topic say, and what the daemon logs once when it changes (one line when writes
/// start failing, one when they recover, however many writes fail in between).
///
/// One value per store, written as the daemon's link state of a machine is: what happens to
/// the store (a write succeeds or fails, the reserve is given back or made again, the store
/// moves into memory or back to its file) is a transition, each a mutating function that
/// returns what the store may write from then on (``Writes``). The rules are the cases: only a
/// full disk releases the reserve, and while it is released periodic writes are refused; a
/// store in memory keeps its file's state for when it goes back.
public indirect enum StoreHealth: Sendable, Hashable {
    /// Writes land on the file.
    case sound(reserve: Reserve)
    /// The last write to the file was refused (`since`: the first refusal of this run of them).
    /// Every write is still tried: the next success may end it.
    case failing(WriteFailure, since: UTCTime, reserve: Reserve)
    /// The file system is full and the reserve was given back so that writes keeping a session
    /// fit: checkpoints and plot points are refused before they are tried, so they cannot eat
    /// that room, until the reserve is made again.
    case reserveReleased(WriteFailure, since: UTCTime)
    /// The store runs in memory (``StoreBacking``): the file could not be opened for writing (a
    /// card gone read-only), or a damaged one is being replaced. Sessions are kept, and
    /// uploaded, from memory, and written to the file as soon as it can be; writes succeed
    /// meanwhile. `file`: the file's state, taken up again when the store goes back to it.
    case inMemory(WriteFailure, since: UTCTime, file: StoreHealth)

    /// The ballast file's state (``StoreReserve``).
    public enum Reserve: String, Sendable, Hashable {
        /// No reserve is kept (a command's store, not the daemon's).
        case none
        case held
        /// Given back for a write that keeps a session (``StoreHealth/reserveReleased(_:since:)``).
        case released
        /// Not made for want of room: tried again before each write.
        case missing
    }

    /// What the store may write in a state: every transition's answer.
    public enum Writes: Sendable, Hashable {
        /// Every write is tried.
        case all
        /// Only writes that keep a session (a finished session, an upload's marks, the tokens):
        /// a periodic one is refused with this failure before it is tried.
        case keepingOnly(WriteFailure)
    }

    // MARK: Transitions

    /// A write succeeded. It says the store is writable again only when it proves it: while
    /// the reserve is out, the write used its room; after a full disk, only with `room` on the
    /// file system for the reserve (`reserveBytes`) again (a write that found room in the WAL's
    /// old frames proves nothing). Else a full disk where some writes fit and others do not
    /// would flap between failing and recovered every few seconds. In memory, the success
    /// counts for the file's state as it would have.
    public mutating func writeSucceeded(room: Int64?, reserveBytes: Int64) -> Writes {
        switch self {
        case .sound, .reserveReleased:
            break
        case .failing(let failure, _, let reserve):
            if failure.cause == .full, (room ?? 0) < reserveBytes { break }
            self = .sound(reserve: reserve)
        case .inMemory(let why, let since, var file):
            _ = file.writeSucceeded(room: room, reserveBytes: reserveBytes)
            self = .inMemory(why, since: since, file: file)
        }
        return writes
    }

    /// A write was refused with `failure` at `now`.
    public mutating func writeFailed(_ failure: WriteFailure, at now: UTCTime) -> Writes {
        switch self {
        case .sound(let reserve):
            self = .failing(failure, since: now, reserve: reserve)
        case .failing(_, let since, let reserve):
            self = .failing(failure, since: since, reserve: reserve)
        case .reserveReleased(_, let since):
            self = .reserveReleased(failure, since: since)
        case .inMemory(let why, let since, var file):
            _ = file.writeFailed(failure, at: now)
            self = .inMemory(why, since: since, file: file)
        }
        return writes
    }

    /// A write that keeps a session found the disk full and gave the reserve back to try again:
    /// from now on only such writes are tried.
    public mutating func reserveReleased(for failure: WriteFailure, at now: UTCTime) -> Writes {
        switch self {
        case .inMemory(let why, let since, var file):
            _ = file.reserveReleased(for: failure, at: now)
            self = .inMemory(why, since: since, file: file)
        default:
            self = .reserveReleased(failure, since: failingSince ?? now)
        }
        return writes
    }

    /// The reserve is in place again (made before a write, once there is room for it): periodic
    /// writes are tried again. The store stays failing until a write proves it can write.
    public mutating func reserveMade() -> Writes {
        switch self {
        case .sound:
            self = .sound(reserve: .held)
        case .failing(let failure, let since, _), .reserveReleased(let failure, let since):
            self = .failing(failure, since: since, reserve: .held)
        case .inMemory(let why, let since, var file):
            _ = file.reserveMade()
            self = .inMemory(why, since: since, file: file)
        }
        return writes
    }

    /// The store moved into memory because of `why` (its file cannot be written, or is damaged).
    /// Already in memory, only the reason changes.
    public mutating func movedIntoMemory(because why: WriteFailure, at now: UTCTime) -> Writes {
        switch self {
        case .inMemory(_, let since, let file):
            self = .inMemory(why, since: since, file: file)
        default:
            self = .inMemory(why, since: failingSince ?? now, file: self)
        }
        return writes
    }

    /// The store went back to its file (memory written out): the file's state again, where a
    /// failure other than a full disk is over (the file was just written whole); a full disk
    /// waits for a write that proves there is room.
    public mutating func backOnFile() -> Writes {
        guard case .inMemory(_, _, let file) = self else { return writes }
        if case .failing(let failure, _, let reserve) = file, failure.cause != .full {
            self = .sound(reserve: reserve)
        } else {
            self = file
        }
        return writes
    }

    // MARK: What a state says

    /// What the store may write now.
    public var writes: Writes {
        switch self {
        case .reserveReleased(let failure, _): .keepingOnly(failure)
        case .inMemory(_, _, let file): file.writes
        case .sound, .failing: .all
        }
    }

    /// Whether what the store takes is on the disk: no write failing, and the file in use.
    public var writable: Bool {
        if case .sound = self { true } else { false }
    }

    /// Why the last write failed; nil once one succeeds (with the reserve in place).
    public var failure: WriteFailure? {
        switch self {
        case .sound: nil
        case .failing(let failure, _, _), .reserveReleased(let failure, _): failure
        case .inMemory(_, _, let file): file.failure
        }
    }

    /// Why the store runs in memory; nil while the file is in use.
    public var inMemory: WriteFailure? {
        if case .inMemory(let why, _, _) = self { why } else { nil }
    }

    /// What keeps the store from the disk now: the failing write first, else why it is in memory.
    public var problem: WriteFailure? { failure ?? inMemory }

    /// Since when the store has not been writable.
    public var failingSince: UTCTime? {
        switch self {
        case .sound: nil
        case .failing(_, let since, _), .reserveReleased(_, let since), .inMemory(_, let since, _): since
        }
    }

    public var reserve: Reserve {
        switch self {
        case .sound(let reserve), .failing(_, _, let reserve): reserve
        case .reserveReleased: .released
        case .inMemory(_, _, let file): file.reserve
        }
    }

    /// Whether the reserve is out (given back, or never made): the store makes it before its
    /// next write once there is room.
    public var wantsReserve: Bool { reserve == .released || reserve == .missing }

    /// The file refused a write because it is read-only: the daemon moves the store into memory.
    public var fileIsReadOnly: WriteFailure? {
        guard inMemory == nil, let failure, failure.cause == .readOnly else { return nil }
        return failure
    }
}

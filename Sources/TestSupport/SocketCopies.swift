import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The inode of the socket `descriptor` refers to, which every copy of it shares.
public func socketInode(_ descriptor: Int32) -> UInt64? {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return nil }
    return UInt64(status.st_ino)
}

/// How many descriptors of this process refer to the socket with `inode` (read from
/// `/proc/self/fd`). Whether a peer sees a hang-up can hang on other processes too: a child
/// that another test is spawning holds a copy of every descriptor until it execs. What this
/// process still holds is ours alone, so a test of "closed before it returns" counts here.
public func descriptorsOpen(onSocket inode: UInt64) -> Int {
    let target = "socket:[\(inode)]"
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return entries.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == target }.count
}

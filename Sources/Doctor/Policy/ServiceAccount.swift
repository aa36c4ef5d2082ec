#if canImport(Glibc)
import Glibc
#endif

/// The service user as the system knows it: whether it exists and which groups it is in,
/// which is what dbus-daemon checks `group=` policies against.
struct ServiceAccount: Sendable, Hashable {
    var user: String
    var uid: UInt32
    /// Every group, primary first, by name (a gid without a name is shown as its number).
    var groups: [String]

    /// `nil` when no such user exists.
    static func lookUp(_ user: String) -> ServiceAccount? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwnam_r(user, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        let (uid, primary) = (entry.pw_uid, entry.pw_gid)
        var count: Int32 = 64
        var ids = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(user, primary, &ids, &count) < 0 {
            ids = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(user, primary, &ids, &count)
        }
        let gids = [primary] + ids.prefix(Int(max(0, count))).filter { $0 != primary }
        return ServiceAccount(user: user, uid: uid, groups: gids.map { groupName($0) ?? "\($0)" })
    }

    static func groupName(_ gid: gid_t) -> String? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getgrgid_r(gid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.gr_name else { return nil }
        return String(cString: name)
    }

    static func userName(_ uid: uid_t) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }

    static func groupExists(_ name: String) -> Bool {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        return getgrnam_r(name, &entry, &buffer, buffer.count, &result) == 0 && result != nil
    }
}

#if canImport(Glibc)
import Glibc
#endif
import LocalSocket

enum GroupLookup {
    /// The id of the group called `name`, through NSS (so LDAP and sssd groups count too), with
    /// the re-entrant call because the daemon has other threads.
    static func id(named name: String) throws(LocalSocketError) -> gid_t {
        var group = Glibc.group()
        var result: UnsafeMutablePointer<Glibc.group>?
        var size = 1024
        while size <= 1 << 20 {
            var buffer = [CChar](repeating: 0, count: size)
            let status = getgrnam_r(name, &group, &buffer, size, &result)
            if status == ERANGE {
                size *= 2
                continue
            }
            guard status == 0, result != nil else { throw .noSuchGroup(name) }
            return group.gr_gid
        }
        throw .noSuchGroup(name)
    }
}

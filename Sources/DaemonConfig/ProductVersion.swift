/// The release both executables print for `--version` and the Debian package is named after.
///
/// Written here once: `ftms-bridge`, `ftms-bridged` and the daemon's start-up line read this
/// constant, and scripts/package-deb.sh reads the string literal below, so the package version
/// and what the binaries say can never disagree.
package enum ProductVersion {
    package static let current = "0.2.0"
    /// When this release was made (`YYYY-MM-DD`, UTC), moved on with ``current``: no session
    /// it records can be older, so a wall clock reading earlier is wrong (contract §5), as a
    /// gateway without a real-time clock reads 2000-01-01 until NTP steps it.
    package static let released = "2026-11-27"
}

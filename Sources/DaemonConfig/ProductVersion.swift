/// The release both executables print for `--version` and the Debian package is named after.
///
/// Written here once: `ftms-bridge`, `ftms-bridged` and the daemon's start-up line read this
/// constant, and scripts/package-deb.sh reads the string literal below, so the package version
/// and what the binaries say can never disagree.
package enum ProductVersion {
    package static let current = "0.2.0"
}

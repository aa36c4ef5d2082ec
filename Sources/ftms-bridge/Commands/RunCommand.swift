import ProcessOutput
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// `ftms-bridge run [--config PATH] …`: the daemon is its own executable, `ftms-bridged`; this
/// replaces the process with it, flags and all, so that habits, scripts and the demo that say
/// `ftms-bridge run` keep working and the daemon's pid is the one they started.
///
/// `ftms-bridged` is looked for beside this executable (a build directory) and then in the
/// `sbin` beside its `bin` (the package's /usr/bin and /usr/sbin); never on `$PATH`, so `run`
/// always starts the daemon of the same build.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the daemon (execs ftms-bridged with the same flags: --config PATH, --check-config, --print-config).",
        discussion: "Stops cleanly on SIGTERM or SIGINT (open sessions are checkpointed); SIGHUP re-reads the config.")

    static let daemonName = "ftms-bridged"

    @Argument(parsing: .captureForPassthrough, help: "Passed to ftms-bridged unchanged.")
    var arguments: [String] = []

    func run() throws {
        guard let daemon = Self.daemonPath() else {
            printError("run: no \(Self.daemonName) beside \(Self.ownDirectory() ?? "this executable") or in its ../sbin; install both binaries together")
            throw ExitCode(1)
        }
        let argv = ([daemon] + arguments).map { strdup($0) } + [nil]
        execv(daemon, argv)
        // Only reached when exec failed.
        let reason = errnoText(errno)
        argv.forEach { free($0) }
        printError("run: cannot start \(daemon): \(reason)")
        throw ExitCode(1)
    }

    /// The directory holding this executable, from `/proc/self/exe` (not `argv[0]`, which a
    /// caller chooses).
    static func ownDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }

    /// `ftms-bridged` beside this executable, else in `../sbin`; nil when neither is executable.
    static func daemonPath() -> String? {
        guard let directory = ownDirectory() else { return nil }
        var candidates = ["\(directory)/\(daemonName)"]
        if directory.hasSuffix("/bin") {
            candidates.append("\(directory.dropLast(3))sbin/\(daemonName)")
        }
        return candidates.first { access($0, X_OK) == 0 }
    }
}

import ArgumentParser
import DaemonConfig
import Foundation
import Store
import Upload

/// The options every command touching the store or the backend takes (contract §9), parsed in
/// this one place so that several gateways can run side by side in tests, each with its own
/// `--state-dir` and `--backend`. (The config file, which these override, is the daemon's.)
struct GatewayOptions: ParsableArguments {
    @OptionGroup var state: StateOptions

    @Option(help: "The SolidFocus backend's base URL, e.g. https://api.example.com or http://127.0.0.1:8080.")
    var backend: String?

    @Option(help: "Seconds each backend call may take, answer included.")
    var timeout: Double = 10

    @Option(name: .customLong("time-zone"), help: "IANA zone whose calendar days make the workout streak (default: $TZ, else the system's).")
    var timeZone: String?

    func validate() throws {
        guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be between 0 and 600 seconds") }
        if let timeZone, TimeZone(identifier: timeZone) == nil { throw ValidationError("--time-zone: unknown zone \(timeZone)") }
    }

    var resolvedTimeZone: TimeZone {
        timeZone.flatMap(TimeZone.init(identifier:)) ?? .current
    }

    func openStore(creating: Bool = false) throws -> GatewayStore {
        try state.openStore(creating: creating)
    }

    /// The store and the backend client, for commands that call the backend.
    func syncService(creating: Bool = false) throws -> SyncService {
        guard let backend else { throw ValidationError("no backend: give --backend URL") }
        let client = try BackendClient(baseURL: backend, timeout: .milliseconds(Int64((timeout * 1000).rounded())))
        return SyncService(store: try openStore(creating: creating), client: client, timeZone: resolvedTimeZone)
    }
}

/// `--state-dir` (and `--config`, read when it is not given), alone for commands that touch the store but never the backend (`replay --queue`).
struct StateOptions: ParsableArguments {
    @Option(
        name: .customLong("state-dir"),
        help: "The state directory holding the database (default: the config's state.directory, else $\(GatewayPaths.stateDirectoryVariable), else \(GatewayPaths.defaultStateDirectory)).")
    var stateDirectory: String?

    @OptionGroup var config: ConfigFileOption

    /// `--state-dir`, else the directory the daemon uses (``GatewayPaths``).
    func resolvedStateDirectory() throws(ConfigError) -> String {
        try config.resolve(.stateDirectory, flag: stateDirectory)
    }

    /// The store, or a one-line refusal (a corrupt database is never replaced by an empty one).
    ///
    /// Only a command that must give the gateway its identity (`login`) or that writes sessions
    /// (`salvage`, `replay --queue`) makes a database where there is none: `status`, `queue`,
    /// `upload` and `logout` on a gateway whose daemon never ran (or with a mistyped
    /// `--state-dir`) would otherwise leave a fresh database, with a device id of its own, for
    /// the daemon to find.
    func openStore(creating: Bool = false) throws -> GatewayStore {
        let directory = try existingStateDirectory(creating: creating)
        do {
            return try GatewayStore(directory: directory)
        } catch StoreError.inaccessible(let path, let reason) where !creating {
            // A read-only card: what the file holds can still be listed (a running daemon keeps
            // what is newer in memory; `ftms-bridge status` asks it).
            Self.noteReadOnly(path, reason)
            return try GatewayStore(readingFrom: directory)
        }
    }

    /// The store for a command that only reads it (`status`): opened read-only, so that it
    /// neither migrates the file nor puts the session journal's sessions back in the queue. Both
    /// are the daemon's to do: a `status` asked while the daemon starts (its control socket not
    /// up yet) must not race its open, nor write into a database the daemon has just made.
    func openStoreForReading() throws -> GatewayStore {
        let directory = try existingStateDirectory(creating: false)
        let store = try GatewayStore(readingFrom: directory)
        if let problem = GatewayStore.writeProblem(in: directory) {
            Self.noteReadOnly(store.path, problem)
        }
        return store
    }

    private static func noteReadOnly(_ path: String, _ reason: String) {
        printError("note: \(path) cannot be written (\(reason)): read-only, as the file holds it; a running daemon keeps newer sessions in memory")
    }

    private func existingStateDirectory(creating: Bool) throws -> String {
        let directory = try resolvedStateDirectory()
        if !creating, !FileManager.default.fileExists(atPath: directory + "/" + GatewayStore.fileName) {
            throw StoreError.unreadable(
                path: directory + "/" + GatewayStore.fileName, reason: "no database yet (the daemon makes it on its first start; --state-dir names another)")
        }
        return directory
    }
}

/// Runs a command's body, turning any failure into contract §9's one line on stderr and exit
/// status 1. Argument errors keep ArgumentParser's usage message.
func reportingFailure(_ command: String, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ValidationError {
        throw error
    } catch let error as ExitCode {
        throw error
    } catch {
        printError("\(command): \(error)")
        throw ExitCode(1)
    }
}

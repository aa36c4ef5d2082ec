import ArgumentParser
import Foundation
import ProcessOutput
import ReferenceBackend

/// `ftms-backend`: the reference SolidFocus backend (SolidFocus) on loopback, for the upload
/// tests, the README demo, and integrators without the real server. docs/backend-api.md is
/// its manual.
@main
struct FTMSBackend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ftms-backend",
        abstract: "A reference SolidFocus backend with fault injection (docs/backend-api.md).",
        discussion: """
            Prints one line `listening http://HOST:PORT` on stdout once it accepts connections, then one \
            line per request on stderr (never a token). Stops on SIGINT or SIGTERM.

            Fault rules (--fault, repeatable; also POST /_admin/faults at run time) are KIND[:key=value,...]:
              5xx      answer 5xx before any work            status=503 retry-after=S
              429      answer 429 with Retry-After            retry-after=1
              timeout  do the work and commit, then no answer mode=drop|sleep seconds=30
              invalid  refuse a session that would be stored error=validation_error
              latency  wait before handling                   ms=N
            Every kind takes every=N, next=N, after=N and route=NAME[+NAME...], with route names \
            sso refresh logout batch_upload upload sessions me stats patch_stats trainings.
            Example: --fault 5xx:route=batch_upload,after=1,next=1 (the second batch fails once).
            """)

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port; 0 picks a free one.")
    var port = 8080

    @Option(help: "Access-token lifetime in seconds (expires_in).")
    var tokenLifetime = 1800

    @Option(help: "Refresh-token lifetime in seconds, renewed by each rotation.")
    var refreshLifetime = 60 * 86_400

    @Option(help: "Seconds for which a just-rotated refresh token is still accepted once more.")
    var refreshGrace = 0

    @Option(help: "Most sessions per batch_upload.")
    var maxBatch = 20

    @Option(help: "IANA time zone for workout_streak and last_workout_date (the gateway's).")
    var timeZone = "UTC"

    @Option(help: "JSON-lines state file, replayed at start so a restarted backend keeps its data.")
    var state: String?

    @Option(name: .customLong("fault"), help: "A fault rule, KIND[:key=value,...] (repeatable).")
    var faults: [String] = []

    @Flag(help: "Do not serve /_admin/*.")
    var noAdmin = false

    @Flag(help: "No per-request log lines.")
    var quiet = false

    @Flag(help: "Exit when stdin reaches end of file, so a test harness that dies takes the backend with it.")
    var exitWithStdin = false

    mutating func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0–65535") }
        guard tokenLifetime >= 1, refreshLifetime >= 1, refreshGrace >= 0 else {
            throw ValidationError("--token-lifetime and --refresh-lifetime must be ≥ 1, --refresh-grace ≥ 0")
        }
        guard maxBatch >= 1 else { throw ValidationError("--max-batch must be ≥ 1") }
        guard TimeZone(identifier: timeZone) != nil else { throw ValidationError("--time-zone \(timeZone) is not a known zone") }
        for spec in faults {
            do {
                _ = try FaultRule(spec: spec)
            } catch {
                throw ValidationError("--fault \(spec): \(error)")
            }
        }
    }

    func run() async throws {
        var configuration = BackendConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.accessTokenLifetime = tokenLifetime
        configuration.refreshTokenLifetime = refreshLifetime
        configuration.refreshGrace = refreshGrace
        configuration.maxBatchSize = maxBatch
        configuration.timeZone = TimeZone(identifier: timeZone) ?? configuration.timeZone
        configuration.statePath = state
        configuration.faults = try faults.map { try FaultRule(spec: $0) }
        configuration.adminEnabled = !noAdmin
        configuration.logRequests = !quiet
        let server: BackendServer
        do {
            server = try BackendServer(configuration: configuration)
        } catch {
            LineOutput.standardError("ftms-backend: \(error)")
            throw ExitCode(1)
        }
        if exitWithStdin { StdinLifeline.watch() }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        try await server.run { port in
            LineOutput.standardOutput("listening http://\(shownHost):\(port)")
        }
    }
}

import ArgumentParser
import Upload

/// `ftms-bridge logout [--upload-first | --force]` (SolidFocus Flow 6).
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Log the gateway out, unbinding it, and wipe every local session, stats and cache.",
        discussion: """
            Refuses while sessions are pending unless given --upload-first (upload them, then log out if none \
            is left) or --force (discard them). Then calls POST /auth/logout and, whatever the network says, \
            deletes the tokens, sessions, stats and caches. The device id is kept.
            """
    )

    @OptionGroup var gateway: GatewayOptions

    @Flag(help: "Upload pending sessions first; refuse if any is still pending afterwards.")
    var uploadFirst = false

    @Flag(help: "Log out even with sessions pending: they are lost.")
    var force = false

    func validate() throws {
        if uploadFirst && force { throw ValidationError("give --upload-first or --force, not both") }
    }

    func run() async throws {
        try await reportingFailure("logout") {
            let service = try gateway.syncService()
            let result = try await service.logout(uploadFirst ? .uploadFirst : force ? .force : .refuseIfPending) { batch in
                printLine(batch.description)
            }
            if let upload = result.upload { printLine(upload.stats.description) }
            if let error = result.serverCallError {
                printError("logout: POST /auth/logout failed (\(error)); the backend may keep this device bound until it next logs in")
            }
            printLine("logged out; local data wiped" + (result.discarded > 0 ? " (\(result.discarded) sessions never uploaded were discarded)" : "")
                + "; device id \(service.store.deviceID) kept")
        }
    }
}

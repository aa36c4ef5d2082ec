import JSON
import ArgumentParser
import Foundation
import Store
import Upload

/// `ftms-bridge login --provider P --id-token-file F` (SolidFocus Flow 2). The id token comes
/// from a file or stdin, never the command line, where `ps` and shell history would show it.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log the gateway in to the SolidFocus backend with an identity provider's id token.",
        discussion: """
            Binds this gateway (its device id) to the account, stores the tokens (mode 0600), then downloads \
            the account's sessions (merged by id) and stats. Sessions recorded while logged out stay and are \
            uploaded by the next upload. Fails distinctly with device_already_bound (the account is bound to \
            another device) and invalid_token (the id token was refused).
            """
    )

    @OptionGroup var gateway: GatewayOptions

    @Option(help: "The identity provider: apple, google (test for the reference backend).")
    var provider: String

    @Option(help: "A file holding the id token; - or no option reads it from stdin.")
    var idTokenFile: String?

    func run() async throws {
        try await reportingFailure("login") {
            let idToken = try Self.readIDToken(from: idTokenFile)
            let service = try gateway.syncService(creating: true)
            let result = try await service.login(provider: provider, idToken: idToken)
            printLine("logged in: device \(service.store.deviceID)" + (Self.user(result.userProfile).map { ", user \($0)" } ?? ""))
            if let error = result.sessionsError {
                printError("login: downloading sessions failed (\(error)); local sessions are kept")
            } else {
                printLine("sessions: \(result.sessionsAdded) downloaded, \(result.sessionsAlreadyHeld) already here"
                    + (result.sessionsSkipped > 0 ? ", \(result.sessionsSkipped) unreadable skipped" : ""))
            }
            if let error = result.statsError {
                printError("login: downloading stats failed (\(error))")
            } else if let stats = result.stats {
                printLine("stats: " + StatsText.line(stats))
            }
            let pending = try await service.store.counts().pending
            if pending > 0 { printLine("\(pending) sessions pending upload: run ftms-bridge upload, or let the daemon") }
        }
    }

    /// At most 64 KiB, trimmed; an empty token is refused before any call.
    static func readIDToken(from path: String?) throws -> String {
        let data: Data
        if let path, path != "-" {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw ValidationError("--id-token-file: cannot read \(path)")
            }
            data = contents
        } else {
            data = FileHandle.standardInput.readDataToEndOfFile()
        }
        guard data.count <= 65_536 else { throw ValidationError("the id token is over 64 KiB") }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw ValidationError("the id token is empty") }
        return token
    }

    /// The profile's name, email or user id, for the confirmation line.
    static func user(_ profile: String?) -> String? {
        guard let profile, let object = try? JSONReader.read(profile) else { return nil }
        return ["name", "email", "user_id"].lazy.compactMap { object[$0]?.string }.first
    }
}

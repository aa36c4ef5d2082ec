import ArgumentParser
import Upload

/// `ftms-bridge upload`: the batch upload procedure once, now (contract §6).
struct UploadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Upload pending sessions now, in batches of 20, oldest first, and settle the stats.",
        discussion: """
            Prints one line per batch as it is answered, then the stats result and a summary. A batch whose call \
            fails stays pending and the upload goes on with the next. Exit status 1 when anything is left \
            pending by a failure, or the backend needs a login.
            """
    )

    @OptionGroup var gateway: GatewayOptions

    func run() async throws {
        try await reportingFailure("upload") {
            let service = try gateway.syncService()
            let report = try await service.uploader.run { batch in printLine(batch.description) }
            if case .notChecked = report.stats {} else { printLine(report.stats.description) }
            printLine(report.summary)
            guard report.succeeded else { throw UploadIncomplete(summary: report.summary) }
        }
    }
}

/// The one line an upload that left work undone exits with.
struct UploadIncomplete: Error, CustomStringConvertible {
    let summary: String
    var description: String { "incomplete: \(summary)" }
}

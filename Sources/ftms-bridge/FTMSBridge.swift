import ArgumentParser

/// `ftms-bridge`: the gateway daemon and its operator tools (SPEC §9).
///
/// This target composes the library modules; it holds command-line plumbing and the
/// process's edges (file descriptors), never protocol logic.
@main
struct FTMSBridge: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "ftms-bridge",
        abstract: "Bridge SolidFocus FTMS bikes and rowers to sessions, uploads and live metrics.",
        version: version,
        subcommands: [RunCommand.self, DecodeCommand.self, ScanCommand.self, MonitorCommand.self, ControlCommand.self, ReplayCommand.self, LoginCommand.self, LogoutCommand.self, StatusCommand.self, QueueCommand.self, UploadCommand.self, WatchCommand.self, DemoCommand.self, DoctorCommand.self, DashboardCommand.self]
    )

    static func main() async {
        if CommandLine.arguments.dropFirst().first == RunCommand.configuration.commandName {
            RunCommand.adoptEventLoopExecutor()
        }
        await main(nil)
    }
}

import ArgumentParser
import DaemonConfig
import ProcessOutput

/// `ftms-bridge`: the gateway's operator tools (contract §9). The daemon itself is `ftms-bridged`;
/// `ftms-bridge run` execs it.
///
/// This target composes the library modules; it holds command-line plumbing and the
/// process's edges (file descriptors), never protocol logic.
@main
struct FTMSBridge: AsyncParsableCommand {
    static let version = ProductVersion.current

    static let configuration = CommandConfiguration(
        commandName: "ftms-bridge",
        abstract: "Bridge SolidFocus FTMS bikes and rowers to sessions, uploads and live metrics.",
        version: version,
        subcommands: [RunCommand.self, DecodeCommand.self, ScanCommand.self, MonitorCommand.self, ControlCommand.self, ReplayCommand.self, LoginCommand.self, LogoutCommand.self, StatusCommand.self, QueueCommand.self, SalvageCommand.self, UploadCommand.self, HandoverCommand.self, WatchCommand.self, DemoCommand.self, DoctorCommand.self, DashboardCommand.self]
    )

    static func main() async {
        await main(ProcessArguments.current())
    }
}

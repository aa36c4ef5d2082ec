import DaemonConfig
import NIOPosix

/// The control socket bound to ``DaemonControl`` (placeholder until the Control module lands).
struct ControlEndpoint: Sendable {
    let close: @Sendable () async -> Void

    static func listen(_ settings: DaemonConfig.SocketSettings, control: DaemonControl, on loops: MultiThreadedEventLoopGroup) async throws -> ControlEndpoint {
        ControlEndpoint(close: {})
    }

    func close() async {
        await close()
    }
}

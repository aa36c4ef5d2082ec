public import Hummingbird
import NIOCore

/// The request context: Hummingbird's core storage plus the connection, which the `timeout`
/// fault closes to make a committed call look lost.
public struct BackendRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

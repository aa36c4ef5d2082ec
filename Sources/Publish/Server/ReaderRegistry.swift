import NIOCore

/// What a reader's handler tells the server it belongs to, from the loop they share: the
/// server (``MetricsServer``) in the daemon, a registry of the test's own when the handler is
/// tested on a testing channel.
protocol ReaderRegistry: AnyObject, Sendable {
    /// The loop the registry and its readers run on.
    var eventLoop: any EventLoop { get }
    /// A reader connected: it gets its `hello`.
    func attach(_ reader: NIOLoopBound<ReaderHandler>)
    func detach(_ reader: NIOLoopBound<ReaderHandler>)
    /// A reader asked for a narrower (or wider) stream.
    func watch(_ filter: WatchFilter, for reader: NIOLoopBound<ReaderHandler>)
    /// A reader sent something that is not a watch: it is told why and closed.
    func reject(_ reader: NIOLoopBound<ReaderHandler>, for error: any Error)
}

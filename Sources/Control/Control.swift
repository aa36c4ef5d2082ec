/// The control socket (contract §7): newline-delimited JSON requests from the operator's CLI
/// to the running daemon (`status`, `machines`, the machine commands that become contract §4
/// Control Point writes, `upload`, trainings), each answered on one line.
///
/// **Main types.**
/// - ``ControlRequest`` and ``ControlResponse``: the protocol, one request and one answer per
///   line, with an `id` the answer carries back. Values are checked when a request is read, to
///   the bounds the CLI checks its flags against, so a handler never sees a level it cannot
///   send; a bad line still gets an answer with its id when it had one.
/// - ``ControlServer`` (SwiftNIO) listens, and ``ControlHandler`` is what it runs each request
///   through: the daemon's `DaemonControl` implements it. The server links no daemon.
/// - ``ControlClient`` is the CLI's side: one request, one answer, on a fresh connection, every
///   wait bounded by one deadline through `poll(2)`, with a distinct error when no daemon is
///   listening.
///
/// **Invariants.**
/// - *Only the socket's owner can use it.* It is bound in a private directory and renamed into
///   place through `LocalSocket`'s ``SocketPlacement``, so the file is never reachable with a
///   wider mode than configured; a stale file is replaced, a live daemon's refused.
/// - *Answers come in order, one request at a time per connection*: the next line is not even
///   parsed until the answer before it is with the kernel. That is also the backpressure: a
///   client that does not read stops being read.
/// - *No client can hold the daemon.* Lines are bounded, clients are counted, and an idle one
///   times out; a newcomer to a full socket takes the place of the client that has kept the
///   server waiting longest.
/// - *A request is never cancelled halfway.* A client that goes away does not stop its call (a
///   Control Point write half done is worse than one nobody hears about); its answer is dropped.
///
/// docs/control-socket.md is the protocol's reference.
enum ControlModule {}

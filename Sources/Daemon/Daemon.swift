/// `ftms-bridged`: the modules composed into the service a gym runs (contract §10).
///
/// The data flow of contract §1, live: a ``MachineFleet`` keeps every allowed machine connected
/// (re-creating the bus connection when dbus-daemon itself restarts), each machine's
/// ``MachineWorker`` runs the pure pipeline, a ``SessionSink`` hands finished sessions to the
/// ``FinishedSessionKeeper``, which makes them durable before anything else hears of them, and
/// Publish's `LivePublisher` fans everything out on the metrics socket. ``GatewayDaemon`` opens the store and binds the sockets first, tells
/// systemd it is ready, then runs the rest as swift-service-lifecycle services.
enum DaemonModule {}

import Clocks

/// Tells systemd how the service is doing (`Type=notify`), through the socket named in
/// `$NOTIFY_SOCKET`.
///
/// Without `NOTIFY_SOCKET` (a shell, a test, the demo) every send is a quiet no-op, so the
/// daemon calls it unconditionally. A send never blocks and never traps; what went wrong comes
/// back as a ``NotifyError`` for the log.
///
/// Children the daemon starts should not inherit `NOTIFY_SOCKET` or the watchdog variables:
/// the caller removes ``SystemdVariable/inheritedBySupervisedChildren`` from their environment.
package struct SystemdNotifier: Sendable {
    enum Target: Sendable {
        case none
        case socket(NotifySocketAddress)
        case unusable(NotifyError)
    }

    let target: Target
    let monotonicMicroseconds: @Sendable () -> UInt64

    /// `CLOCK_MONOTONIC` in microseconds, the clock systemd compares `MONOTONIC_USEC=` with
    /// (not `CLOCK_BOOTTIME`, which runs on through suspend).
    package static func systemMonotonicMicroseconds() -> UInt64 {
        UInt64(clamping: SystemClocks.monotonic().microseconds)
    }

    /// - Parameters:
    ///   - environment: the process environment, or a test's stand-in. An unset or empty
    ///     `NOTIFY_SOCKET` turns the notifier off.
    ///   - monotonicMicroseconds: `CLOCK_MONOTONIC` for `MONOTONIC_USEC=`.
    package init(environment: [String: String], monotonicMicroseconds: @escaping @Sendable () -> UInt64 = SystemdNotifier.systemMonotonicMicroseconds) {
        self.monotonicMicroseconds = monotonicMicroseconds
        guard let value = environment[SystemdVariable.notifySocket], !value.isEmpty else {
            target = .none
            return
        }
        do {
            target = .socket(try NotifySocketAddress(parsing: value))
        } catch {
            target = .unusable(error)
        }
    }

    /// Whether systemd asked for notifications (even if its address turned out unusable).
    package var isEnabled: Bool {
        if case .none = target { false } else { true }
    }

    /// The parsed address, when there is a usable one.
    package var address: NotifySocketAddress? {
        if case .socket(let address) = target { address } else { nil }
    }

    /// Sends `states` as one datagram, in order.
    package func send(_ states: [NotifyState]) throws(NotifyError) {
        switch target {
        case .none: return
        case .unusable(let error): throw error
        case .socket(let address):
            let payload = try NotifyMessage.encode(states, monotonicMicroseconds: monotonicMicroseconds)
            try DatagramSender.send(payload, to: address)
        }
    }

    package func send(_ states: NotifyState...) throws(NotifyError) {
        try send(states)
    }
}

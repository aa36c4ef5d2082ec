/// How one characteristic's notifications reach the link.
package enum NotifyPath: Sendable, Equatable, CustomStringConvertible {
    /// `AcquireNotify`: a SEQPACKET socket of BlueZ's, one datagram per notification, read by
    /// the connection's `DatagramReader` (the daemon's event loop) or else on the bus thread;
    /// nothing crosses the bus per notification. `mtu` is the ATT MTU BlueZ gave.
    case acquired(mtu: Int)
    /// `StartNotify`: one PropertiesChanged signal per notification, through the dbus-daemon.
    /// `reason` says why AcquireNotify was not used (nil: it was not tried).
    case startNotify(reason: String?)

    /// `acquired` or `start_notify`: what `status` and the `machine` message say.
    package var wireName: String {
        switch self {
        case .acquired: "acquired"
        case .startNotify: "start_notify"
        }
    }

    package var description: String {
        switch self {
        case .acquired(let mtu): "acquired (MTU \(mtu))"
        case .startNotify(let reason?): "StartNotify (\(reason))"
        case .startNotify(nil): "StartNotify"
        }
    }
}

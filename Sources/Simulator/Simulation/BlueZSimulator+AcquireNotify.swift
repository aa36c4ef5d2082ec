import DBus

#if canImport(Glibc)
import Glibc
#endif

/// `AcquireNotify` as BlueZ 5.66 serves it (`src/gatt-client.c` `characteristic_acquire_notify`,
/// docs/bluez.md "Reading, writing, notifications"): one `SOCK_SEQPACKET` socketpair per subscription, the client's end in the
/// reply with the MTU, one datagram per notification, hung up when the link goes down (never
/// re-established on reconnect), released when the client closes its end, refused with
/// NotSupported on a characteristic without `notify`, with NotPermitted "Notify acquired"
/// while acquired, and with InProgress while any client has a StartNotify session on it.
/// `NotifyAcquired` says which.
extension BlueZSimulator {
    func acquireNotify(
        _ call: DBusMethodCall, device: DeviceState, characteristic: CharacteristicState, sender: String
    ) throws(BusFailure) -> Answer {
        guard configuration.acquireNotify, characteristic.flags.contains("notify") else { throw .notSupported }
        guard call.arguments.first?.stringDictionary != nil else { throw .invalidArguments }
        guard device.connected else { throw .failed("Not connected") }
        if let acquired = characteristic.acquired {
            // The client closed its end (it gave the socket back): BlueZ sees the hang-up, at
            // once unless its handling is deferred (`notify-uaf`), when 5.66 still refuses.
            guard acquired.peerClosed, hangUpDelay == .zero else { throw .bluez("NotPermitted", "Notify acquired") }
            releaseAcquired(characteristic)
        }
        guard characteristic.sessions.isEmpty else { throw .gattInProgress }
        guard !departed.contains(sender) else { throw .failed("Operation failed") }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw .failed("Failed to create socket pair")
        }
        let mtu = 247
        characteristic.acquired = AcquiredNotify(descriptor: pair[0], owner: sender)
        setProperty(characteristic.path, BusNames.gattCharacteristic, "NotifyAcquired", .bool(true))
        log("notify acquired \(characteristic.path) by \(sender)")
        // The reply dups the client's end into the message; the value closes ours after.
        return .now([.unixFD(DBusFileDescriptor(owning: pair[1])), .uint16(UInt16(mtu))])
    }

    /// Closes the simulator's end (the client reads a hang-up) and clears `NotifyAcquired`.
    func releaseAcquired(_ characteristic: CharacteristicState) {
        guard let acquired = characteristic.acquired else { return }
        characteristic.acquired = nil
        acquired.close()
        setProperty(characteristic.path, BusNames.gattCharacteristic, "NotifyAcquired", .bool(false))
    }

    /// Every acquired socket of `device` (link down) or of `owner` (client left the bus).
    func releaseAcquired(device: DeviceState? = nil, owner: String? = nil) {
        for characteristic in acquiredCharacteristics(device: device, owner: owner) { releaseAcquired(characteristic) }
    }

    /// The link of `device` went down: 5.66 shuts every acquired socket down at once (the
    /// client reads a hang-up; `btd_gatt_client_disconnected`), and handles each hang-up
    /// later like a client's close (``hangUp(_:reason:)``).
    func shutDownAcquired(device: DeviceState) {
        for characteristic in acquiredCharacteristics(device: device) {
            characteristic.acquired?.close()
            hangUp(characteristic, reason: "the link went down")
        }
    }

    /// The characteristics whose notify socket bluetoothd holds, of `device` or of `owner`
    /// (every one when nil).
    func acquiredCharacteristics(device: DeviceState? = nil, owner: String? = nil) -> [CharacteristicState] {
        (device.map { [$0] } ?? Array(devices.values)).flatMap { candidate in
            candidate.characteristics.values.filter { characteristic in
                guard let acquired = characteristic.acquired else { return false }
                return owner == nil || acquired.owner == owner
            }
        }
    }

    /// `sock_hup`: the sockets whose client end is closed, or whose link went down, are
    /// released (NotifyAcquired=false), at once without ``Fault/notifyUseAfterFree``, else
    /// ``hangUpDelay`` after the simulator notices the close (at its next event: a bus message
    /// or a notification due on the socket).
    ///
    /// bluetoothd handles a hang-up as a main-loop event of its own, and answers D-Bus calls
    /// that came after the close in turns before it gets there (the VM saw MGMT Disconnect
    /// handled before `sock_hup`). With the delay, a client that closes, makes a round trip
    /// and then disconnects or leaves finds the socket still held: the losing side of 5.66's
    /// race, which ``Fault/notifyUseAfterFree`` turns into the crash (docs/simulator.md). Only
    /// `NotifyAcquired` false tells the client it may go.
    func handleHangUps() {
        for characteristic in acquiredCharacteristics() {
            guard let acquired = characteristic.acquired, acquired.peerClosed else { continue }
            hangUp(characteristic, reason: "its client closed the socket")
        }
    }

    /// Handles the hang-up of `characteristic`'s acquired socket now, or schedules it
    /// ``hangUpDelay`` ahead (once per socket).
    func hangUp(_ characteristic: CharacteristicState, reason: String) {
        guard let acquired = characteristic.acquired, !acquired.hangUpPending else { return }
        let path = characteristic.path
        guard hangUpDelay > .zero else {
            log("notify released \(path): \(reason)")
            releaseAcquired(characteristic)
            return
        }
        acquired.hangUpPending = true
        after(hangUpDelay, owner: "hang-up") {
            // Released meanwhile (StopNotify, a restart): this socket's hang-up is moot.
            guard characteristic.acquired === acquired else { return }
            self.log("notify released \(path): \(reason)")
            self.releaseAcquired(characteristic)
        }
    }

    /// ``Fault/notifyUseAfterFree``: 5.66 frees `client`'s notify session when it leaves the bus
    /// (`notify_client_disconnect`), and the hang-up of a socket it still held then touches
    /// the freed session (`sock_hup`, `notify_io_destroy`); a Disconnect from that client leaves
    /// the same hang-up racing its departure. Ends the simulator as the crash ends bluetoothd;
    /// true when it did.
    func crashIfHoldingNotify(of client: String, on device: DeviceState? = nil, when event: String) -> Bool {
        guard crashesOnHeldNotify, let held = acquiredCharacteristics(device: device, owner: client).first else { return false }
        finish(.crashed("use-after-free in gatt-client (5.66): \(client) \(event) while bluetoothd still held its acquired notify socket of \(held.path)"))
        return true
    }
}

/// The simulator's end of one acquired notify socket. Owned by the simulator actor.
final class AcquiredNotify {
    private var descriptor: Int32
    let owner: String
    /// The hang-up is noticed and its handling scheduled (``BlueZSimulator/hangUp(_:reason:)``).
    var hangUpPending = false

    init(descriptor: Int32, owner: String) {
        self.descriptor = descriptor
        self.owner = owner
    }

    deinit { close() }

    /// One notification, one datagram; false when the client has closed its end.
    func send(_ bytes: [UInt8]) -> Bool {
        guard descriptor >= 0 else { return false }
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        // A full queue (a client not reading) drops the notification, as BlueZ's io does.
        return sent >= 0 || errno == EAGAIN
    }

    /// Whether the client has closed its end.
    var peerClosed: Bool {
        guard descriptor >= 0 else { return true }
        var probe = pollfd(fd: descriptor, events: 0, revents: 0)
        return poll(&probe, 1, 0) > 0 && probe.revents & Int16(POLLHUP | POLLERR) != 0
    }

    func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }
}

import DBus

/// org.bluez.Device1 and the link under it, with 5.66's orderings (`src/device.c`):
/// Connected=true before the Connect reply, ServicesResolved after the GATT objects,
/// ServicesResolved=false then the Disconnect reply then Connected=false.
extension BlueZSimulator {
    func deviceCall(_ call: DBusMethodCall, sender: String) throws(BusFailure) -> Answer {
        guard let device = devices[call.path] else { throw .doesNotExist }
        switch call.member {
        case "Connect":
            // LE: already connected is success; a second Connect while one is pending is not.
            if device.connected { return .now([]) }
            guard device.pendingConnect == nil else { throw .failed("Operation already in progress") }
            guard adapters[device.adapterPath]?.powered == true else { throw .failed("Input/output error") }
            guard !linkedElsewhere(device) else { throw .connectionAbortByLocal }
            connect(device, replier: call.replier)
            return .later
        case "Disconnect":
            // Crashed: the caller gets no reply, as from a bluetoothd that died (the bus's NoReply).
            if crashIfHoldingNotify(of: sender, on: device, when: "disconnected \(device.spec.name)") { return .later }
            if let connect = device.pendingConnect {
                device.pendingConnect = nil
                cancelTimers(owner: device.path)
                fail(connect, .connectionCanceled)
            }
            guard device.connected else { return .now([]) }
            disconnect(device, replier: call.replier)
            return .later
        case "Pair":
            throw .failed("Pairing is not simulated")
        case "CancelPairing":
            throw .doesNotExist
        default:
            throw .notAvailable
        }
    }

    /// Connect(): the device becomes persisted at once; the rest follows its connect plan.
    func connect(_ device: DeviceState, replier: DBusMethodReplier?) {
        device.known = true
        cancelTimers(owner: "expire " + device.path)
        if device.asleep || !isOpenInAir(device) {
            // Nobody answers the controller's connection attempt; it gives up. A machine that
            // another bus's central holds is not advertising to this one either. 5.66 reports
            // any failed LE connect as ECONNABORTED (src/device.c:5370, att_connect_cb), which
            // is "le-connection-abort-by-local" (src/error.c:208-209, via
            // btd_error_le_conn_from_errno at src/device.c:5403-5404).
            log("connect \(device.spec.name): \(device.asleep ? "asleep" : "held by another central")")
            device.pendingConnect = replier
            after(configuration.timing.connectUnanswered, owner: device.path) {
                guard let replier = device.pendingConnect else { return }
                device.pendingConnect = nil
                self.fail(replier, .connectionAbortByLocal)
            }
            return
        }
        let mode = device.plan.next()
        log("connect \(device.spec.name): \(mode.rawValue)")
        device.pendingConnect = replier
        guard mode != .hang else { return }
        after(device.plan.connectDelay, owner: device.path) {
            let replier = device.pendingConnect
            device.pendingConnect = nil
            if mode != .abort, let air = self.air, !air.take(device.spec.address, for: self.central(device)) {
                // Another bus's central took the machine while this attempt was under way.
                if let replier { self.fail(replier, .connectionAbortByLocal) }
                self.log("connect \(device.spec.name): le-connection-abort-by-local (held by another central)")
                return
            }
            if mode == .abort {
                // The controller connected and the link died at once: two separate changes.
                self.setProperty(device.path, BusNames.device, "Connected", .bool(true))
                self.flush()
                self.setProperty(device.path, BusNames.device, "Connected", .bool(false))
                self.flush()
                if let replier { self.fail(replier, .connectionAbortByLocal) }
                self.log("connect \(device.spec.name): le-connection-abort-by-local")
                return
            }
            if mode == .replyFirst || mode == .silent {
                if let replier { self.reply(replier) }
                self.linkUp(device, mode: mode)
                self.flush()
            } else {
                self.linkUp(device, mode: mode)
                if let replier { self.reply(replier) }
            }
        }
    }

    /// The ATT link is up: Connected=true, stored notify sessions registered again
    /// (`btd_gatt_client_connected`), services resolved after the resolve delay.
    func linkUp(_ device: DeviceState, mode: ConnectPlan.Mode) {
        device.connected = true
        device.link += 1
        device.linkMode = mode
        device.framesThisLink = 0
        device.reportedRSSI = nil
        for characteristic in device.characteristics.values {
            for sender in characteristic.sessions.keys { characteristic.sessions[sender] = true }
        }
        if mode == .silent {
            _ = store.set(device.path, BusNames.device, "Connected", .bool(true))
        } else {
            setProperty(device.path, BusNames.device, "Connected", .bool(true))
        }
        log("link up \(device.spec.name)\(mode == .silent ? " (Connected not signalled)" : "")")
        guard mode != .noResolve else { return }
        let link = device.link
        let delay = mode == .earlyResolve ? Duration.zero : device.plan.resolveDelay
        after(delay, owner: device.path) {
            guard device.connected, device.link == link else { return }
            self.resolve(device, mode: mode)
        }
    }

    /// ServicesResolved=true, after exporting the GATT objects on a first connection (the
    /// UUIDs grow to the resolved services). Early resolution (bluez #1489) exports them later.
    func resolve(_ device: DeviceState, mode: ConnectPlan.Mode) {
        let early = mode == .earlyResolve && !device.gattExported && !device.layout.services.isEmpty
        if !early {
            exportResolved(device)
            // Browsing and the resolved callback are separate main-loop turns in bluetoothd:
            // the objects are out before ServicesResolved (docs/bluez.md "Connecting").
            flush()
        }
        device.resolved = true
        setProperty(device.path, BusNames.device, "ServicesResolved", .bool(true))
        log("services resolved \(device.spec.name)\(early ? " (before the GATT objects)" : "")")
        if early {
            let link = device.link
            let delay = max(device.plan.resolveDelay, .milliseconds(1))
            after(delay, owner: device.path) {
                guard device.connected, device.link == link else { return }
                self.exportResolved(device)
                self.startStreaming(device)
            }
        } else {
            startStreaming(device)
        }
    }

    private func exportResolved(_ device: DeviceState) {
        if !device.gattExported, !device.layout.services.isEmpty {
            setProperty(device.path, BusNames.device, "UUIDs", .array(element: "s", device.resolvedUUIDs.map(DBusValue.string)))
            exportGatt(device, announce: true)
        }
        for characteristic in device.characteristics.values where characteristic.hasActiveSession {
            if store.value(characteristic.path, BusNames.gattCharacteristic, "Notifying") != .bool(true) {
                setProperty(characteristic.path, BusNames.gattCharacteristic, "Notifying", .bool(true))
            }
        }
    }

    /// Disconnect(): the link goes down after the disconnect delay, which answers `replier`;
    /// `then` runs after that.
    func disconnect(_ device: DeviceState, replier: DBusMethodReplier, then done: Action? = nil) {
        device.disconnecting = true
        device.disconnectRepliers.append(replier)
        let link = device.link
        after(configuration.timing.disconnect, owner: "disconnect " + device.path) {
            if device.connected, device.link == link { self.linkDown(device, reason: "disconnected by request") }
            done?()
        }
    }

    /// The link is gone (Disconnect, link loss, power off): pending ATT requests fail,
    /// ServicesResolved=false goes out, then the waiting Disconnect (and RemoveDevice) replies,
    /// then Connected=false, as `device_remove_connection` orders them. Notify sessions stay,
    /// inactive; Notifying is not reset.
    func linkDown(_ device: DeviceState, reason: String) {
        guard device.connected else { return }
        cancelTimers(owner: device.path)
        device.streamTask?.cancel()
        device.streamTask = nil
        failPendingWrites(device)
        if let connect = device.pendingConnect {
            device.pendingConnect = nil
            fail(connect, .connectionCanceled)
        }
        for characteristic in device.characteristics.values {
            characteristic.writePending = false
            for sender in characteristic.sessions.keys { characteristic.sessions[sender] = false }
        }
        device.controlPoint.loseControl()
        // Acquired sockets hang up and are not re-established on reconnect (docs/bluez.md "Reading, writing, notifications").
        shutDownAcquired(device: device)
        device.connected = false
        device.disconnecting = false
        leaveAir(device)
        if device.resolved {
            device.resolved = false
            setProperty(device.path, BusNames.device, "ServicesResolved", .bool(false))
        }
        flush()
        for replier in device.disconnectRepliers { reply(replier) }
        device.disconnectRepliers = []
        setProperty(device.path, BusNames.device, "Connected", .bool(false))
        log("link down \(device.spec.name): \(reason)")
    }

    func failPendingWrites(_ device: DeviceState) {
        let writes = device.pendingWrites
        device.pendingWrites = [:]
        for replier in writes.values { fail(replier, .operationFailed) }
    }
}

import DBus

/// org.bluez.Adapter1 (5.66 `src/adapter.c`): discovery sessions per client, merged filters,
/// machines heard while discovering, power.
extension BlueZSimulator {
    func adapterCall(_ call: DBusMethodCall, sender: String) throws(BusFailure) -> Answer {
        guard let adapter = adapters[call.path] else { throw .doesNotExist }
        switch call.member {
        case "StartDiscovery":
            guard adapter.powered else { throw .notReady }
            guard !adapter.sessions.contains(sender) else { throw .inProgress }
            if adapter.failuresToInject > 0 {
                // The kernel refused the start: 5.66 answers InProgress and keeps no session.
                adapter.failuresToInject -= 1
                log("StartDiscovery on \(adapter.name) refused (injected)")
                throw .inProgress
            }
            guard !departed.contains(sender) else { return .now([]) }
            if adapter.deafStartsToInject > 0 {
                adapter.deafStartsToInject -= 1
                adapter.deaf = true
                log("StartDiscovery on \(adapter.name) accepted, and the adapter does not scan (injected)")
            }
            adapter.sessions.insert(sender)
            // start_discovery_complete: the reply first, then Discovering.
            reply(call.replier)
            discoveryChanged(adapter)
            return .later
        case "StopDiscovery":
            guard adapter.powered else { throw .notReady }
            guard adapter.sessions.remove(sender) != nil else { throw .failed("No discovery started") }
            reply(call.replier)
            discoveryChanged(adapter)
            return .later
        case "SetDiscoveryFilter":
            guard adapter.powered else { throw .notReady }
            let filter = try DiscoveryFilter.parse(call.arguments[0])
            adapter.filters[sender] = filter
            return .now([])
        case "GetDiscoveryFilters":
            return .now([.array(element: "s", DiscoveryFilter.keys.map(DBusValue.string))])
        case "RemoveDevice":
            guard adapter.powered else { throw .notReady }
            guard let path = call.arguments[0].string, let device = devices[path], device.exported,
                device.adapterPath == adapter.path
            else { throw .doesNotExist }
            if device.connected {
                // Disconnects first: the reply goes with the link, then the object goes.
                disconnect(device, replier: call.replier) { self.removeDevice(device, forget: true) }
                return .later
            }
            removeDevice(device, forget: true)
            return .now([])
        default:
            throw .unknown(objectExists: true, member: call.member, signature: "", interface: BusNames.adapter)
        }
    }

    /// The adapter discovers while any client has a session. Turning on schedules the
    /// machines' advertisements; turning off invalidates RSSI (`discovery_cleanup`) and starts
    /// the TemporaryTimeout of never-connected devices.
    func discoveryChanged(_ adapter: AdapterState) {
        if adapter.sessions.isEmpty { adapter.deaf = false }
        let now = !adapter.sessions.isEmpty && !adapter.deaf
        guard now != adapter.discovering else {
            if now { hearMachines(adapter) }
            return
        }
        adapter.discovering = now
        setProperty(adapter.path, BusNames.adapter, "Discovering", .bool(now))
        log("\(adapter.name) discovering: \(now)")
        if now {
            for (index, device) in devices(on: adapter).enumerated() {
                // In a shared air the expiry follows the last advertisement heard (``heard(_:on:)``),
                // so a machine another bus holds goes even from a client that rescans.
                if air == nil { cancelTimers(owner: "expire " + device.path) }
                let delay = configuration.timing.firstAdvertisement + configuration.timing.advertisementSpread * index
                after(delay, owner: "discovery " + adapter.path) { self.heard(device, on: adapter) }
            }
            return
        }
        cancelTimers(owner: "discovery " + adapter.path)
        for device in devices(on: adapter) where device.exported && !device.connected {
            if device.reportedRSSI != nil {
                device.reportedRSSI = nil
                setProperty(device.path, BusNames.device, "RSSI", nil)
            }
            if !device.known {
                after(configuration.timing.temporaryTimeout, owner: "expire " + device.path) {
                    guard !device.known, !device.connected else { return }
                    self.removeDevice(device, forget: false)
                }
            }
        }
    }

    /// A new filter or session may let through devices heard before but not reported.
    private func hearMachines(_ adapter: AdapterState) {
        for device in devices(on: adapter) where !device.exported && !device.asleep {
            after(configuration.timing.firstAdvertisement, owner: "discovery " + adapter.path) { self.heard(device, on: adapter) }
        }
    }

    /// An advertisement of `device` reached `adapter`: the device appears (InterfacesAdded) or
    /// its RSSI changes, if some session's filter takes it. Then it is heard again later.
    func heard(_ device: DeviceState, on adapter: AdapterState) {
        guard adapter.discovering, devices[device.path] === device else { return }
        after(configuration.timing.rssiInterval, owner: "discovery " + adapter.path) { self.heard(device, on: adapter) }
        guard !device.connected, !device.asleep, isOpenInAir(device) else { return }
        if air != nil, !device.known, device.exported {
            // device_update_last_seen restarts a temporary device's timer at every advertisement
            // (5.66 src/device.c:4199-4206), so one no longer heard (held by another bus's
            // central) goes after TemporaryTimeout even while discovering.
            cancelTimers(owner: "expire " + device.path)
            after(configuration.timing.temporaryTimeout, owner: "expire " + device.path) {
                guard !device.known, !device.connected else { return }
                self.removeDevice(device, forget: false)
            }
        }
        let rssi = device.spec.rssi + Int(device.rssiNoise.uniform(-10...10).rounded())
        guard adapter.admits(address: device.spec.address, name: device.spec.name.isEmpty ? nil : device.spec.name,
                             uuids: device.advertisedUUIDs, rssi: rssi)
        else { return }
        heardAdvertisement(device)
        guard device.exported else {
            device.reportedRSSI = rssi
            exportDevice(device, announce: true, withGatt: false)
            log("\(adapter.name) found \(device.spec.name) \(device.spec.address) rssi \(rssi)")
            return
        }
        // device_set_rssi_with_delta: small changes are not reported unless a filter asks.
        if let last = device.reportedRSSI, abs(last - rssi) < 8, !adapter.reportsEveryRSSI { return }
        device.reportedRSSI = rssi
        setProperty(device.path, BusNames.device, "RSSI", rssiValue(rssi))
    }

    /// Power off drops every link and discovery session, then Powered=false; on is Powered=true.
    func setPowered(_ adapter: AdapterState, _ on: Bool) {
        guard adapter.powered != on else { return }
        log("\(adapter.name) powered \(on ? "on" : "off")")
        if !on {
            for device in devices(on: adapter) {
                if let connect = device.pendingConnect {
                    device.pendingConnect = nil
                    cancelTimers(owner: device.path)
                    fail(connect, .connectionAbortByLocal)
                }
                if device.connected { linkDown(device, reason: "adapter powered off") }
            }
            adapter.sessions.removeAll()
            adapter.filters.removeAll()
            discoveryChanged(adapter)
        }
        adapter.powered = on
        setProperty(adapter.path, BusNames.adapter, "Powered", .bool(on))
    }
}

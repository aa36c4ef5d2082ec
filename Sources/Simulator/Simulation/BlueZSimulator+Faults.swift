import Clocks

/// Injected failures: those configured at start, and a bluetoothd restart.
extension BlueZSimulator {
    func applyStartFaults() {
        for fault in configuration.faults {
            switch fault {
            case .connectAbort(let times): script(.abort, times)
            case .connectHang(let times): script(.hang, times)
            case .noResolve(let times): script(.noResolve, times)
            case .earlyResolve(let times): script(.earlyResolve, times)
            case .connectReplyFirst(let times): script(.replyFirst, times)
            case .connectSilent(let times): script(.silent, times)
            case .connectedAtStart:
                // One link per machine, as a crashed instance leaves them: the machines take
                // the powered adapters from the last one down (the first machine on the last
                // adapter), so a client that ignores where a link already is picks wrongly.
                let powered = adapters.values.filter(\.powered).map(\.path).sorted()
                let addresses = Set(devices.values.map(\.spec.address)).sorted()
                for (index, address) in addresses.enumerated() where !powered.isEmpty {
                    let adapter = powered[powered.count - 1 - index % powered.count]
                    guard let device = devices.values.first(where: { $0.spec.address == address && $0.adapterPath == adapter }) else { continue }
                    device.known = true
                    heardAdvertisement(device)
                    exportDevice(device, announce: true, withGatt: false)
                    linkUp(device, mode: .ok)
                }
                flush()
            case .linkDrop(let frames): for device in devices.values { device.dropAfterFrames = frames }
            case .loseControl(let frames): for device in devices.values { device.loseControlAfterFrames = frames }
            case .restart(let delay, let down):
                after(delay, owner: "fault") { self.restartBluetoothd(down: down) }
            case .powerCycle(let delay, let off):
                after(delay, owner: "fault") {
                    for adapter in self.adapters.values { self.setPowered(adapter, false) }
                    self.after(off, owner: "fault") {
                        for adapter in self.adapters.values { self.setPowered(adapter, true) }
                    }
                }
            case .discoveryFailures(let count): for adapter in adapters.values { adapter.failuresToInject = count }
            case .deafDiscovery(let count): for adapter in adapters.values { adapter.deafStartsToInject = count }
            case .badTypes: badTypes = true
            case .notifyUseAfterFree(let hangUp):
                crashesOnHeldNotify = true
                hangUpDelay = hangUp
            case .controlPointResult(let op, let result): for device in devices.values { device.controlPoint.forcedResults[op] = result }
            case .switchOn(let delay):
                for device in devices.values { setAsleep(device, true) }
                after(delay, owner: "fault") { for device in self.devices.values { self.setAsleep(device, false) } }
            case .sleep(let delay, let asleep):
                after(delay, owner: "fault") {
                    for device in self.devices.values { self.setAsleep(device, true) }
                    self.after(asleep, owner: "fault") { for device in self.devices.values { self.setAsleep(device, false) } }
                }
            }
        }
    }

    /// A machine switched off or asleep drops its link and goes quiet: no advertisement
    /// reaches any adapter, and a Connect() finds nobody to answer and fails after the
    /// controller's LE connection attempt times out. Woken, it advertises again at the next
    /// advertising interval (``SimulatorTiming/rssiInterval``) of a discovering adapter.
    func setAsleep(_ device: DeviceState, _ asleep: Bool) {
        guard device.asleep != asleep else { return }
        device.asleep = asleep
        device.lastFrameAt = nil
        log("\(device.spec.name) \(asleep ? "asleep" : "awake")")
        if asleep {
            linkDown(device, reason: "the machine went to sleep")
        } else if let replier = device.pendingConnect {
            // The controller's attempt was still open: the first advertisement completes it.
            device.pendingConnect = nil
            cancelTimers(owner: device.path)
            connect(device, replier: replier)
        }
    }

    private func script(_ mode: ConnectPlan.Mode, _ times: Int) {
        for device in devices.values { device.plan.scripted += Array(repeating: mode, count: times) }
    }

    /// bluetoothd goes away and comes back: the name is released (clients see
    /// NameOwnerChanged), waiting callers get the bus's NoReply, and after `down` a fresh
    /// process owns `org.bluez` with only what BlueZ persists: adapters, and devices connected
    /// before with their GATT cache, disconnected and without RSSI. As 5.66 did in the VM, the
    /// adapters come back unpowered and are powered on one by one, 600 ms and more later.
    func restartBluetoothd(down: Duration) {
        guard let old = connection else { return }
        log("bluetoothd restarting: \(BusNames.service) gone for \(down.milliseconds) ms")
        generation += 1
        cancelAllTimers()
        for device in devices.values {
            device.streamTask?.cancel()
            device.streamTask = nil
            // Dropped unanswered: the bus daemon answers their callers when we leave.
            device.pendingConnect = nil
            device.pendingWrites = [:]
            device.disconnectRepliers = []
            device.connected = false
            device.resolved = false
            device.disconnecting = false
            leaveAir(device)
            device.controlPoint.loseControl()
            device.reportedRSSI = nil
        }
        for adapter in adapters.values {
            adapter.sessions = []
            adapter.filters = [:]
            adapter.discovering = false
            adapter.powered = false
        }
        departed = []
        agents = [:]
        connection = nil
        old.close()
        buildTree(afterRestart: true)
        let generation = generation
        Task { [weak self] in
            try? await Task.sleep(for: down)
            await self?.reattach(generation)
        }
    }

    private func reattach(_ expected: Int) async {
        var expected = expected
        // The bus may not have processed our old connection's departure yet: retry briefly.
        for attempt in 1...50 {
            guard generation == expected, outcome == nil else { return }
            do {
                try await attach()
                log("bluetoothd back on \(busAddress)")
                for (index, adapter) in adapters.values.sorted(by: { $0.name > $1.name }).enumerated() {
                    after(.milliseconds(600 + 200 * index), owner: "fault") { self.setPowered(adapter, true) }
                }
                return
            } catch is SimulatorError where attempt < 50 {
                expected = generation
                try? await Task.sleep(for: .milliseconds(20))
            } catch {
                finish(.busLost("could not take \(BusNames.service) back: \(error)"))
                return
            }
        }
    }
}

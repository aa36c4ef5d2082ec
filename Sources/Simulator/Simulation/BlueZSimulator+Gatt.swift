import DBus
import FTMS

/// org.bluez.GattCharacteristic1 and GattDescriptor1 (5.66 `src/gatt-client.c`), and the
/// machine behind them: the Control Point, Status and the data stream.
extension BlueZSimulator {
    func characteristicCall(_ call: DBusMethodCall, sender: String) throws(BusFailure) -> Answer {
        guard let device = owner(ofGatt: call.path), let characteristic = device.characteristics[call.path] else { throw .doesNotExist }
        switch call.member {
        case "ReadValue":
            guard device.connected else { throw .failed("Not connected") }
            let (offset, _) = try options(call.arguments[0], allowType: false)
            guard characteristic.flags.contains("read") else { throw .readNotPermitted }
            guard offset <= characteristic.value.count else { throw .invalidOffset }
            // A read stores the value, which BlueZ announces like a notification.
            setValueFlushed(characteristic.path, BusNames.gattCharacteristic, characteristic.value)
            return .now([.bytes(Array(characteristic.value.dropFirst(offset)))])
        case "WriteValue":
            return try write(call, device: device, characteristic: characteristic)
        case "AcquireNotify":
            return try acquireNotify(call, device: device, characteristic: characteristic, sender: sender)
        case "StartNotify":
            guard characteristic.canNotify else { throw .notSupported }
            if let acquired = characteristic.acquired {
                if acquired.peerClosed, hangUpDelay == .zero { releaseAcquired(characteristic) } else { throw .bluez("NotPermitted", "Notify acquired") }
            }
            if device.disconnecting { throw .notConnected }
            if let active = characteristic.sessions[sender] {
                if active { return .now([]) }
                throw .gattInProgress
            }
            guard !departed.contains(sender) else { return .now([]) }
            characteristic.sessions[sender] = device.connected
            if device.connected, store.value(call.path, BusNames.gattCharacteristic, "Notifying") != .bool(true) {
                setProperty(call.path, BusNames.gattCharacteristic, "Notifying", .bool(true))
            }
            return .now([])
        default:
            guard characteristic.sessions.removeValue(forKey: sender) != nil else { throw .failed("No notify session started") }
            updateNotifying(characteristic)
            return .now([])
        }
    }

    func descriptorCall(_ call: DBusMethodCall) throws(BusFailure) -> Answer {
        guard let device = owner(ofGatt: call.path),
            let characteristic = device.characteristics.values.first(where: { $0.descriptorPaths.contains(call.path) })
        else { throw .doesNotExist }
        guard device.connected else { throw .failed("Not connected") }
        let (offset, _) = try options(call.arguments[call.member == "ReadValue" ? 0 : 1], allowType: false)
        // Only CCC descriptors exist here; BlueZ owns them, so writes are refused.
        guard call.member == "ReadValue" else { throw .writeNotPermitted }
        let bits: UInt16 = characteristic.hasActiveSession ? (characteristic.flags.contains("notify") ? 1 : 2) : 0
        let value = [UInt8(bits & 0xFF), UInt8(bits >> 8)]
        guard offset <= value.count else { throw .invalidOffset }
        setValueFlushed(call.path, BusNames.gattDescriptor, value)
        return .now([.bytes(Array(value.dropFirst(offset)))])
    }

    /// `parse_options`: `offset` must be `q` and `type` `s`; other keys are ignored.
    private func options(_ value: DBusValue, allowType: Bool) throws(BusFailure) -> (offset: Int, type: String?) {
        guard let entries = value.stringDictionary else { throw .invalidArguments }
        var offset = 0
        var type: String?
        for (key, value) in entries {
            switch (key, value) {
            case ("offset", .variant(.uint16(let raw))): offset = Int(raw)
            case ("offset", _): throw .invalidArguments
            case ("type", .variant(.string(let raw))) where allowType: type = raw
            case ("type", _) where allowType: throw .invalidArguments
            default: continue
            }
        }
        return (offset, type)
    }

    private func write(_ call: DBusMethodCall, device: DeviceState, characteristic: CharacteristicState) throws(BusFailure) -> Answer {
        guard device.connected else { throw .failed("Not connected") }
        guard !characteristic.writePending else { throw .gattInProgress }
        let data = call.arguments[0].bytes ?? []
        let (offset, requested) = try options(call.arguments[1], allowType: true)
        var type = requested
        if type == nil {
            // Without `type` BlueZ picks by the flags.
            if characteristic.flags.contains("reliable-write") {
                type = "reliable"
            } else if characteristic.flags.contains("write") {
                type = "request"
            } else if characteristic.flags.contains("write-without-response") {
                type = "command"
            } else {
                throw .notSupported
            }
        }
        switch type {
        case "command":
            guard offset == 0 else { throw .notSupported }
            // Sent as Write Command; a Control Point without write-without-response ignores it.
            characteristic.writes.append(data)
            return .now([])
        case "request", "reliable":
            break
        default:
            throw .invalidArguments
        }
        guard characteristic.flags.contains("write") else { throw .writeNotPermitted }
        characteristic.writes.append(data)
        guard characteristic.uuid == 0x2AD9 else { return .now([]) }
        // FTMS: indications must be on, or the machine answers ATT 0xFD (CCCD improperly configured).
        guard characteristic.hasActiveSession else { throw .attError(0xFD) }
        guard !data.isEmpty else { throw .invalidLength }
        let outcome = device.controlPoint.handle(data)
        if let event = outcome.event {
            if let air { air.apply(event, to: device.spec.address) } else { device.source.apply(event) }
        }
        log("control point \(device.spec.name): \(Hex.string(data)) -> \(Hex.string(outcome.response))")
        let replier = call.replier
        let finish: Action = {
            characteristic.writePending = false
            switch device.indicationOrder {
            case .beforeReply:
                self.indicate(device, characteristic, outcome)
                self.reply(replier)
            case .afterReply:
                self.reply(replier)
                let link = device.link
                self.after(.zero, owner: device.path) {
                    guard device.connected, device.link == link else { return }
                    self.indicate(device, characteristic, outcome)
                }
            case .none:
                self.reply(replier)
            }
        }
        guard device.writeDelay > .zero else {
            finish()
            return .later
        }
        characteristic.writePending = true
        nextWriteID += 1
        let id = nextWriteID
        device.pendingWrites[id] = replier
        after(device.writeDelay, owner: device.path) {
            guard device.pendingWrites.removeValue(forKey: id) != nil else { return }
            finish()
        }
        return .later
    }

    /// The response indication, then the Status notification of a success.
    private func indicate(_ device: DeviceState, _ controlPoint: CharacteristicState, _ outcome: ControlPointMachine.Outcome) {
        deliver(controlPoint, outcome.response)
        if let status = outcome.status, let statusCharacteristic = device.characteristic(0x2ADA), statusCharacteristic.hasActiveSession {
            deliver(statusCharacteristic, status)
        }
    }

    /// One notification or indication: Value := bytes, one PropertiesChanged even if unchanged;
    /// while acquired, one datagram on the socket instead, and Value stays as it was (5.66
    /// `notify_io_cb` writes the socket and skips the property).
    func deliver(_ characteristic: CharacteristicState, _ bytes: [UInt8]) {
        if let acquired = characteristic.acquired {
            if !acquired.send(bytes) {
                if !acquired.hangUpPending { log("acquired notify socket of \(characteristic.path) closed by the client") }
                hangUp(characteristic, reason: "its client closed the socket")
            }
            return
        }
        characteristic.value = bytes
        setValueFlushed(characteristic.path, BusNames.gattCharacteristic, bytes)
    }

    /// `update_notifying`: Notifying goes false once no session is left.
    func updateNotifying(_ characteristic: CharacteristicState) {
        if characteristic.sessions.isEmpty, store.value(characteristic.path, BusNames.gattCharacteristic, "Notifying") == .bool(true) {
            setProperty(characteristic.path, BusNames.gattCharacteristic, "Notifying", .bool(false))
        }
    }

    /// Control permission lost (another client, or a fault): Status 0xFF if subscribed.
    func loseControl(_ device: DeviceState) {
        device.controlPoint.loseControl()
        log("control lost \(device.spec.name)")
        if device.connected, let status = device.characteristic(0x2ADA), status.hasActiveSession {
            deliver(status, [0xFF])
        }
    }
}

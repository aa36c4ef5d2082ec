import DBus

/// Routing a call as libdbus and gdbus would, and the interfaces every object has.
extension BlueZSimulator {
    /// What a handler does with its call: answer now, or keep the replier and answer later.
    /// How many calls GetCallLog keeps (older ones are dropped in halves).
    static let callLogLimit = 10_000

    enum Answer {
        case now([DBusValue])
        case later
    }

    func dispatch(_ call: DBusMethodCall) {
        let message = call.message
        let path = call.path
        let member = call.member
        let signature = message.arguments.map(\.signature).joined()
        let sender = message.sender ?? ""
        guard store.contains(path) else {
            // libdbus: a path leading to objects gets the default Introspect, others nothing.
            let node = store.hasNode(path)
            if node, message.interface == BusNames.introspectable, member == "Introspect", signature.isEmpty {
                reply(call.replier, [.string(Introspection.node(children: store.childNames(of: path)))])
            } else {
                fail(call.replier, .unknown(objectExists: node, member: member, signature: signature, interface: message.interface))
            }
            return
        }
        guard let interface = message.interface, store.has(path, interface),
            BusNames.schemas[interface]?.method(member, signature: signature) != nil
        else {
            fail(call.replier, .unknown(objectExists: true, member: member, signature: signature, interface: message.interface))
            return
        }
        if ![BusNames.properties, BusNames.introspectable, BusNames.objectManager, BusNames.mock].contains(interface) {
            if callLog.count >= Self.callLogLimit { callLog.removeFirst(callLog.count / 2) }
            callLog.append("\(interface).\(member) \(path)")
            log("\(member) \(path) from \(sender)")
        } else if configuration.verbose {
            log("\(interface).\(member) \(path) from \(sender)")
        }
        do throws(BusFailure) {
            let answer: Answer
            switch interface {
            case BusNames.properties: answer = try properties(call, path: path, member: member)
            case BusNames.introspectable:
                answer = .now([.string(Introspection.object(interfaces: store.interfaces(of: path), children: store.childNames(of: path)))])
            case BusNames.objectManager: answer = .now([store.managedObjects()])
            case BusNames.agentManager: answer = try agentManager(call, sender: sender)
            case BusNames.profileManager: answer = .now([])
            case BusNames.adapter: answer = try adapterCall(call, sender: sender)
            case BusNames.device: answer = try deviceCall(call, sender: sender)
            case BusNames.gattCharacteristic: answer = try characteristicCall(call, sender: sender)
            case BusNames.gattDescriptor: answer = try descriptorCall(call)
            case BusNames.mock: answer = try mockCall(call)
            default: throw BusFailure.unknown(objectExists: true, member: member, signature: signature, interface: interface)
            }
            if case .now(let values) = answer { reply(call.replier, values) }
        } catch {
            fail(call.replier, error)
        }
    }

    // MARK: org.freedesktop.DBus.Properties (gdbus/object.c)

    private func properties(_ call: DBusMethodCall, path: String, member: String) throws(BusFailure) -> Answer {
        let arguments = call.arguments
        guard let interface = arguments.first?.string else { throw .noSuchInterface("") }
        guard store.has(path, interface), let schema = BusNames.schemas[interface] else { throw .noSuchInterface(interface) }
        switch member {
        case "GetAll":
            return .now([store.propertyDictionary(path, interface)])
        case "Get":
            let name = arguments[1].string ?? ""
            guard let value = store.value(path, interface, name) else { throw .noSuchProperty(name) }
            return .now([.variant(value)])
        default:
            let name = arguments[1].string ?? ""
            // gdbus's order: known at all, then writable, then present.
            guard let property = schema.property(name) else { throw .noSuchProperty(name) }
            guard property.writable else { throw .readOnly(name) }
            guard store.value(path, interface, name) != nil else { throw .noSuchProperty(name) }
            guard case .variant(let value) = arguments[2], value.signature == property.type else { throw .invalidArguments }
            if interface == BusNames.adapter, name == "Powered", let adapter = adapters[path], let on = value.bool {
                setPowered(adapter, on)
            } else {
                setProperty(path, interface, name, value)
            }
            return .now([])
        }
    }

    // MARK: org.bluez.AgentManager1 (src/agent.c), kept so a client may register

    private func agentManager(_ call: DBusMethodCall, sender: String) throws(BusFailure) -> Answer {
        let path = call.arguments.first?.string ?? ""
        switch call.member {
        case "RegisterAgent":
            let capability = call.arguments[1].string ?? ""
            let known = ["", "DisplayOnly", "DisplayYesNo", "KeyboardOnly", "NoInputNoOutput", "KeyboardDisplay"]
            guard known.contains(capability) else { throw .invalidArguments }
            guard agents[sender] == nil else { throw .alreadyExists }
            agents[sender] = path
        case "UnregisterAgent":
            guard agents[sender] == path else { throw .doesNotExist }
            agents[sender] = nil
        default:
            guard agents[sender] == path else { throw .doesNotExist }
        }
        return .now([])
    }

    // MARK: Clients leaving the bus

    /// `g_dbus_add_disconnect_watch`: a client's notify sessions, discovery session, filter
    /// and agent end when it leaves.
    func clientLeft(_ name: String) {
        log("client \(name) left the bus")
        if crashIfHoldingNotify(of: name, when: "left the bus") { return }
        // Only calls already queued when the client left can come from it, so a bounded
        // memory of departures is enough for a simulator that runs for days.
        if departed.count >= Self.callLogLimit { departed.removeAll() }
        departed.insert(name)
        agents[name] = nil
        releaseAcquired(owner: name)
        for device in devices.values {
            for characteristic in device.characteristics.values where characteristic.sessions[name] != nil {
                characteristic.sessions[name] = nil
                updateNotifying(characteristic)
            }
        }
        for adapter in adapters.values {
            adapter.filters[name] = nil
            if adapter.sessions.remove(name) != nil {
                log("discovery session of \(name) on \(adapter.name) ended: client left")
                discoveryChanged(adapter)
            }
        }
    }
}

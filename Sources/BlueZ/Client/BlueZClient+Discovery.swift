import DBus

extension BlueZClient {
    /// Discovers for `duration` on every adapter `filter` allows and returns the machines it takes.
    ///
    /// `SetDiscoveryFilter` narrows BlueZ to our service UUID on LE, but BlueZ ORs every
    /// client's filter, so ``MachineFilter`` checks each device again. `InProgress` from
    /// StartDiscovery (another client's session is starting) is retried a few times.
    package func scan(for duration: Duration, filter: MachineFilter) async throws -> [DiscoveredMachine] {
        let adapters = adapters(allowedBy: filter)
        guard !adapters.isEmpty else { throw BlueZError.noAdapter }
        var started: [String] = []
        for adapter in adapters {
            if try await startDiscovery(on: adapter, filter: filter) { started.append(adapter) }
        }
        try await clock.sleep(for: duration)
        // Collect before stopping: BlueZ invalidates RSSI when discovery stops.
        let found = machines(passing: filter)
        for adapter in started {
            _ = try? await connection.call(
                destination: BlueZNames.service, path: adapter, interface: BlueZNames.adapter,
                member: "StopDiscovery", timeout: .seconds(5))
        }
        return found
    }

    /// The adapters BlueZ has that `filter` lets the gateway use.
    func adapters(allowedBy filter: MachineFilter) -> [String] {
        adapters.filter(filter.allows(adapter:))
    }

    /// Returns false when the adapter cannot discover (powered off, vanished, or no answer in
    /// time); throws only when BlueZ itself is unreachable.
    ///
    /// `InProgress` means this client already has a session there, or the kernel is still busy
    /// with the last one. The first comes from a start whose reply arrived after its timeout (a
    /// busy bluetoothd, seen in the VM), and bluetoothd then answers every later start so until
    /// that session is stopped: StopDiscovery ends it (and answers "No discovery started" to
    /// the second case), then the start is tried again, with a pause.
    func startDiscovery(on adapter: String, filter: MachineFilter) async throws -> Bool {
        let discoveryFilter = DBusValue.properties([
            "UUIDs": .array(element: "s", filter.discoveryUUIDs.map(DBusValue.string)),
            "Transport": .string("le"),
        ])
        do {
            _ = try await connection.call(
                destination: BlueZNames.service, path: adapter, interface: BlueZNames.adapter,
                member: "SetDiscoveryFilter", arguments: [discoveryFilter], timeout: .seconds(5))
        } catch let error as DBusError where error.remoteName != nil {
            return false
        }
        for attempt in 0..<5 {
            do {
                _ = try await connection.call(
                    destination: BlueZNames.service, path: adapter, interface: BlueZNames.adapter,
                    member: "StartDiscovery", timeout: .seconds(10))
                return true
            } catch DBusError.remote(name: "org.bluez.Error.InProgress", _) where attempt < 4 {
                _ = try? await connection.call(
                    destination: BlueZNames.service, path: adapter, interface: BlueZNames.adapter,
                    member: "StopDiscovery", timeout: .seconds(5))
                try await clock.sleep(for: .milliseconds(200 * (attempt + 1)))
            } catch let error as DBusError where error.remoteName != nil {
                return false
            } catch DBusError.timeout {
                return false
            }
        }
        return false
    }
}

import DBus
import Testing

@testable import Simulator

/// gdbus's batching, which decides what a client sees and in which order.
@Suite("Signal batching")
struct PendingSignalsTests {
    @Test func parentsAreAnnouncedFirstAndCarryTheirLatestValues() {
        var store = ObjectStore()
        var pending = PendingSignals()
        store.add("/org/bluez/hci0/dev_1/service000f", "org.bluez.GattService1", ["UUID": .string("s")])
        pending.interfaceAdded("/org/bluez/hci0/dev_1/service000f", "org.bluez.GattService1")
        store.add("/org/bluez/hci0/dev_1", "org.bluez.Device1", ["Connected": .bool(false)])
        pending.interfaceAdded("/org/bluez/hci0/dev_1", "org.bluez.Device1")
        // A change to an interface not yet announced goes out inside InterfacesAdded only.
        store.set("/org/bluez/hci0/dev_1", "org.bluez.Device1", "Connected", .bool(true))
        pending.propertyChanged("/org/bluez/hci0/dev_1", "org.bluez.Device1", "Connected")
        let signals = pending.drain(store)
        #expect(signals.map(\.member) == ["InterfacesAdded", "InterfacesAdded"])
        #expect(signals.map { $0.arguments.first?.string } == ["/org/bluez/hci0/dev_1", "/org/bluez/hci0/dev_1/service000f"])
        let device = signals.first?.arguments[1].stringDictionary?["org.bluez.Device1"]?.stringDictionary
        #expect(device?["Connected"]?.bool == true)
        #expect(pending.isEmpty)
    }

    @Test func changesOfOneInterfaceShareOneSignalInTableOrder() {
        var store = ObjectStore()
        var pending = PendingSignals()
        let path = "/org/bluez/hci0/dev_1"
        store.add(path, "org.bluez.Device1", ["Connected": .bool(true), "ServicesResolved": .bool(true), "RSSI": .int16(-60)])
        store.set(path, "org.bluez.Device1", "ServicesResolved", .bool(false))
        pending.propertyChanged(path, "org.bluez.Device1", "ServicesResolved")
        store.set(path, "org.bluez.Device1", "RSSI", nil)
        pending.propertyInvalidated(path, "org.bluez.Device1", "RSSI")
        store.set(path, "org.bluez.Device1", "Connected", .bool(false))
        pending.propertyChanged(path, "org.bluez.Device1", "Connected")
        let signals = pending.drain(store)
        #expect(signals.count == 1)
        #expect(signals.first?.member == "PropertiesChanged" && signals.first?.path == path)
        let changed = signals.first?.arguments[1]
        guard case .dictionary(_, _, let entries)? = changed else {
            Issue.record("no changed dictionary")
            return
        }
        #expect(entries.compactMap(\.key.string) == ["ServicesResolved", "Connected"])
        #expect(signals.first?.arguments[2].strings == ["RSSI"])
    }

    /// A flushed `Value` goes out alone, ahead of changes queued on other objects.
    @Test func flushingOnePathLeavesTheOthersQueued() {
        var store = ObjectStore()
        var pending = PendingSignals()
        store.add("/a", "org.bluez.Device1", ["Connected": .bool(true)])
        store.add("/a/char0012", "org.bluez.GattCharacteristic1", ["Value": .bytes([1])])
        pending.propertyChanged("/a", "org.bluez.Device1", "Connected")
        pending.propertyChanged("/a/char0012", "org.bluez.GattCharacteristic1", "Value")
        #expect(pending.drain(path: "/a/char0012", store).map(\.path) == ["/a/char0012"])
        #expect(pending.drain(store).map(\.path) == ["/a"])
        // Queued changes of a removed object are dropped with it.
        pending.propertyChanged("/a", "org.bluez.Device1", "Connected")
        pending.forget("/a")
        #expect(pending.drain(store).isEmpty)
    }
}

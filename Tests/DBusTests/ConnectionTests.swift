import BlueZTesting
import TestSupport
import DBus
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("DBus binding on a real dbus-daemon", .serialized)
struct ConnectionTests {
    @Test func connectsAndCallsTheBus() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        #expect(connection.uniqueName.hasPrefix(":"))
        let id = try await connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", member: "GetId")
        #expect(id.first?.string?.count == 32)
    }

    /// Every type the binding models goes out and comes back unchanged through a real bus.
    @Test func everyValueRoundTripsThroughAnExportedObject() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let server = try await DBusConnection.connect(address: bus.address)
        let client = try await DBusConnection.connect(address: bus.address)
        defer {
            server.close()
            client.close()
        }
        #expect(try await server.requestName("org.example.Echo"))
        try server.export(path: "/echo") { call in call.replier.reply(call.arguments) }
        let values: [DBusValue] = [
            .byte(0xFE), .bool(true), .bool(false), .int16(-2), .uint16(65535), .int32(Int32.min), .uint32(UInt32.max),
            .int64(Int64.min), .uint64(UInt64.max), .double(-0.25), .string("SF-Bike-0042 ✓"), .objectPath("/org/bluez/hci0"),
            .signature("a{sv}"), .bytes([0x44, 0x02, 0xda]), .bytes([]), .array(element: "s", []),
            .array(element: "o", [.objectPath("/a"), .objectPath("/b")]),
            .properties(["Name": .string("SF-Rower-1"), "RSSI": .int16(-60), "UUIDs": .array(element: "s", [.string("0000fe01-0000-1000-8000-00805f9b34fb")])]),
            .dictionary(key: "q", value: "v", [DBusDictEntry(.uint16(0x0E5A), .variant(.bytes([1, 2])))]),
            .structure([.int32(1), .string("x"), .variant(.variant(.bool(true)))]),
            .variant(.array(element: "(is)", [.structure([.int32(2), .string("y")])])),
        ]
        let echoed = try await client.call(
            destination: "org.example.Echo", path: "/echo", interface: "org.example.Echo", member: "Echo", arguments: values)
        #expect(echoed == values)
    }

    @Test func invalidArgumentsThrowInsteadOfAborting() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let bad: [(String, String, String, String, [DBusValue])] = [
            ("org.bluez", "not a path", "org.bluez.Device1", "Connect", []),
            ("org.bluez", "/org/bluez/hci0/dev_AA", "org.bluez..Device1", "Connect", []),
            ("org.bluez", "/org/bluez", "org.bluez.Device1", "Con nect", []),
            ("bad name!", "/", "org.bluez.Device1", "Connect", []),
            ("org.bluez", "/", "org.bluez.Device1", "Connect", [.string("nul\u{0}inside")]),
            ("org.bluez", "/", "org.bluez.Device1", "Connect", [.objectPath("relative/path")]),
            ("org.bluez", "/", "org.bluez.Device1", "Connect", [.array(element: "s", [.int32(1)])]),
            ("org.bluez", "/", "org.bluez.Device1", "Connect", [.structure([])]),
            ("org.bluez", "/", "org.bluez.Device1", "Connect", [.signature("a{")]),
        ]
        for (destination, path, interface, member, arguments) in bad {
            await #expect(throws: DBusError.self) {
                _ = try await connection.call(destination: destination, path: path, interface: interface, member: member, arguments: arguments)
            }
        }
        // And the connection still works afterwards.
        let id = try await connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetId")
        #expect(!id.isEmpty)
    }

    @Test func remoteErrorsAndTimeoutsAreDistinct() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let server = try await DBusConnection.connect(address: bus.address)
        let client = try await DBusConnection.connect(address: bus.address)
        defer {
            server.close()
            client.close()
        }
        _ = try await server.requestName("org.example.Slow")
        try server.export(path: "/slow") { call in
            switch call.member {
            case "Fail": call.replier.fail(name: "org.bluez.Error.InProgress", message: "Operation already in progress")
            case "Never": break  // the replier outlives the call: the client must time out
            default: call.replier.reply()
            }
        }
        do {
            _ = try await client.call(destination: "org.example.Slow", path: "/slow", interface: "org.example.Slow", member: "Fail")
            Issue.record("Fail returned")
        } catch let error as DBusError {
            #expect(error == .remote(name: "org.bluez.Error.InProgress", message: "Operation already in progress"))
        }
        // Never is never answered: only the call's own 200 ms timeout ends it (without one it
        // would hang, and the group's timeout would name this test).
        do {
            _ = try await client.call(
                destination: "org.example.Slow", path: "/slow", interface: "org.example.Slow", member: "Never", timeout: .milliseconds(200))
            Issue.record("Never returned")
        } catch let error as DBusError {
            // The replier is dropped unanswered, which answers NoReply; either way a timeout.
            guard case .timeout = error else {
                Issue.record("expected a timeout, got \(error)")
                return
            }
        }
        #expect(await client.outstandingCalls() == 0)
    }

    @Test func signalsArriveInOrderAndOnlyWhenMatched() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let emitter = try await DBusConnection.connect(address: bus.address)
        let listener = try await DBusConnection.connect(address: bus.address)
        defer {
            emitter.close()
            listener.close()
        }
        let stream = try await listener.signals(matching: MatchRule(
            interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", pathNamespace: "/org/bluez"))
        for index in 0..<200 {
            try emitter.emitSignal(path: "/org/bluez/hci0/dev_\(index % 3)", interface: "org.freedesktop.DBus.Properties",
                                   member: "PropertiesChanged", arguments: [.string("org.bluez.GattCharacteristic1"), .properties(["Value": .bytes([UInt8(index)])]), .array(element: "s", [])])
            if index % 50 == 0 {
                try emitter.emitSignal(path: "/elsewhere", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                                       arguments: [.string("x"), .properties([:]), .array(element: "s", [])])
            }
        }
        var received: [UInt8] = []
        for await message in stream {
            guard let value = message.arguments[1].stringDictionary?["Value"]?.bytes?.first else { continue }
            received.append(value)
            if received.count == 200 { break }
        }
        #expect(received == (0..<200).map { UInt8($0) })
    }

    @Test func lostBusFailsCallsAndEndsStreams() async throws {
        let bus = try PrivateBus()
        let connection = try await DBusConnection.connect(address: bus.address)
        let stream = try await connection.signals(matching: MatchRule(interface: "org.example.Never"))
        bus.stop()
        for await _ in stream {}  // must finish rather than hang
        #expect(!connection.isConnected)
        await #expect(throws: DBusError.disconnected) {
            _ = try await connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetId")
        }
    }

    /// Work handed to a closed connection after its loop thread has ended still happens, on
    /// the caller's thread: a call fails, a socket given to it is closed and closing it
    /// returns, instead of waiting forever for a thread that is gone.
    @Test
    func whatComesAfterTheLoopHasEndedIsStillAnswered() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try await DBusConnection.connect(address: bus.address)
        connection.close()
        // The loop thread ends a moment after close(): these run before and after it does.
        for _ in 0..<30 {
            await #expect(throws: DBusError.disconnected) {
                _ = try await connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetId")
            }
            var ends: [Int32] = [-1, -1]
            // Close-on-exec: a child spawned meanwhile must not keep the peer from its hang-up.
            #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0)
            let socket = try #require(socketInode(ends[0]))
            let subscription = connection.readDatagrams(
                from: DBusFileDescriptor(owning: ends[0]), maximumSize: 20, onDatagram: { _ in }, onEnd: { _ in })
            #expect(subscription != nil)
            await subscription?.close()
            #expect(descriptorsOpen(onSocket: socket) == 0)
            _ = Glibc.close(ends[1])
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func unreachableBusIsAOneLineError() async {
        await #expect(throws: DBusError.self) {
            _ = try await DBusConnection.connect(address: "unix:path=/nonexistent/bus_socket")
        }
    }
}

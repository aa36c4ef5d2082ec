public import DBus

/// The `org.bluez.Mock` controls both BlueZ peers offer (the Python fake and `ftms-sim`), so a
/// test can be written once and run against either.
public protocol BlueZMockControls: Sendable {
    /// The connection the controls are called on.
    var control: DBusConnection { get }
}

extension BlueZMockControls {
    /// Calls one `org.bluez.Mock` control on `/`.
    @discardableResult
    public func mock(_ member: String, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        try await control.call(
            destination: "org.bluez", path: "/", interface: "org.bluez.Mock", member: member, arguments: arguments,
            timeout: .seconds(10))
    }

    /// `"2ad9"`, `"2ad9/2902"`, … → object path.
    public func gattPaths(_ device: String) async throws -> [String: String] {
        (try await mock("GetGattPaths", [.string(device)]).first?.stringDictionary ?? [:]).compactMapValues(\.string)
    }

    /// Every value written to `characteristic`, oldest first.
    public func writes(_ characteristic: String) async throws -> [[UInt8]] {
        (try await mock("GetWrites", [.string(characteristic)]).first?.array ?? []).compactMap(\.bytes)
    }
}

extension FakeBlueZ: BlueZMockControls {}

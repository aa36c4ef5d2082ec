import TestSupport
import Foundation
import GRDB
import Testing
@testable import Store

/// The device id outlives the database: kept in a 0600 file of its own beside it, the
/// database's id winning for existing gateways, and derived from the machine id as systemd's
/// `sd_id128_get_machine_app_specific` does when there is none.
@Suite("Device identity")
struct DeviceIdentityTests {
    @Test func sha256AndHMACMatchTheStandardsVectors() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(SHA256.hash(Array(repeating: UInt8(ascii: "a"), count: 1000))) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
        // RFC 4231 test cases 1 and 6 (a key longer than a block).
        #expect(hex(SHA256.hmac(key: Array(repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(hex(SHA256.hmac(key: Array(repeating: 0xaa, count: 131), message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    /// The value systemd's algorithm gives for this machine id and app id (computed with
    /// Python's hmac, which gives what `systemd-id128 machine-id --app-specific` gives).
    @Test func theMachineIDIsDerivedAsSystemdDoes() throws {
        let directory = try TemporaryDirectory(prefix: "ftms-identity")
        let path = directory.file("machine-id")
        try "0123456789abcdef0123456789abcdef\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(MachineAppID.deviceID(machineIDPath: path) == "9940d12a-89c1-4f5e-ac66-8fddfaa030a6")
        for bad in ["", "uninitialized\n", "00000000000000000000000000000000\n", "0123456789abcdef0123456789abcdeg\n"] {
            try bad.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(MachineAppID.deviceID(machineIDPath: path) == nil, "\(bad)")
        }
        #expect(MachineAppID.deviceID(machineIDPath: directory.file("none")) == nil)
    }

    /// A zeroed store opens with the same id (from its file), and a fresh state directory on
    /// the same machine derives the same one again.
    @Test func aZeroedStoreKeepsItsDeviceID() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-identity")
        let machineID = directory.file("machine-id")
        try "0123456789abcdef0123456789abcdef\n".write(toFile: machineID, atomically: true, encoding: .utf8)
        let state = directory.file("state")
        let store = try GatewayStore(directory: state, machineIDPath: machineID)
        #expect(store.deviceID == "9940d12a-89c1-4f5e-ac66-8fddfaa030a6")
        try store.close()
        let file = state + "/" + DeviceIdentityFile.fileName
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == store.deviceID + "\n")

        let database = state + "/" + GatewayStore.fileName
        let size = try #require(try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int)
        try Data(count: size).write(to: URL(fileURLWithPath: database))
        // No machine id now: the id comes from its file.
        let (fresh, moved) = try GatewayStore.openMovingDamagedAside(directory: state)
        #expect(fresh.deviceID == store.deviceID)
        #expect(moved?.keptDeviceID == true)
        try fresh.close()
    }

    /// An existing gateway (a database from before the file) keeps its id, which is written to
    /// the file; a file that says otherwise is corrected: the database wins.
    @Test func theDatabasesIDWins() async throws {
        let directory = try TemporaryDirectory(prefix: "ftms-identity")
        let machineID = directory.file("machine-id")
        try "0123456789abcdef0123456789abcdef\n".write(toFile: machineID, atomically: true, encoding: .utf8)
        let store = try GatewayStore(directory: directory.path)
        let id = store.deviceID
        try store.close()
        let file = directory.file(DeviceIdentityFile.fileName)
        try "806a2f1d-90b8-484d-b1ac-74f7f4039f18\n".write(toFile: file, atomically: true, encoding: .utf8)
        let reopened = try GatewayStore(directory: directory.path, machineIDPath: machineID)
        #expect(reopened.deviceID == id)
        #expect(DeviceIdentityFile(directory: directory.path).read() == id)
        try reopened.close()
        try FileManager.default.removeItem(atPath: file)
        let again = try GatewayStore(directory: directory.path, machineIDPath: machineID)
        #expect(again.deviceID == id)
        #expect(DeviceIdentityFile(directory: directory.path).read() == id, "migration: written from the database")
        try again.close()
    }
}

import TestSupport
import CBluetooth
import DBus
import Foundation
import Testing
@testable import Doctor

@Suite("Kernel Bluetooth and controllers")
struct KernelAndControllerTests {
    @Test func aKernelWithoutBluetoothIsOnePlainLine() throws {
        let directory = try TemporaryDirectory()
        let check = KernelCheck(probe: KernelBluetoothProbe { EAFNOSUPPORT }, sysfs: directory.file("sys/class/bluetooth"))
        let (result, support) = check.run()
        #expect(support == .absent)
        #expect(result.status == .warning)
        #expect(result.detail == "this kernel has no Bluetooth support: socket(AF_BLUETOOTH) fails with EAFNOSUPPORT (Address family not supported by protocol) and \(directory.file("sys/class/bluetooth")) does not exist")
        #expect(!result.detail.contains("\n"))
        #expect(result.data["bluetooth_support"] == false)
    }

    /// This machine, as it is: whatever its kernel does, the check says it in one line, and
    /// on a kernel without Bluetooth (this build machine) it is the plain sentence.
    @Test func thisMachinesKernel() {
        let (result, support) = KernelCheck(probe: .system, sysfs: "/sys/class/bluetooth").run()
        let descriptor = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), BTPROTO_HCI)
        let error = errno
        if descriptor >= 0 { close(descriptor) }
        if descriptor < 0, error == EAFNOSUPPORT {
            #expect(support == .absent)
            #expect(result.detail.hasPrefix("this kernel has no Bluetooth support: socket(AF_BLUETOOTH) fails with EAFNOSUPPORT"))
        } else {
            #expect(support != .absent)
            #expect(!result.detail.contains("no Bluetooth support"))
        }
        #expect(result.status != .failed)
        #expect(!result.detail.contains("\n"))
    }

    @Test func kernelWithBluetoothButNoController() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("bt"), withIntermediateDirectories: true)
        let (result, support) = KernelCheck(probe: KernelBluetoothProbe { nil }, sysfs: directory.file("bt")).run()
        #expect(support == .present(controllers: []))
        #expect(result.status == .warning)
        #expect(result.detail.hasPrefix("the kernel has Bluetooth, but no controller is attached"))
    }

    /// The real libbluetooth probe on this machine: no crash, an answer, whatever is (or is
    /// not) there, even for an index no machine has.
    @Test func theHCIProbeNeverCrashes() async {
        for index in [0, 1, 99] {
            let answer = await HCIControllerProbe().read(index: index, timeout: .milliseconds(500))
            switch answer {
            case .success(let info): #expect(info.hciVersion > 0)
            case .failure(let failure): #expect([.noKernelSupport, .noDevice].contains(failure) || "\(failure)".contains("hci\(index)"))
            }
        }
        #expect(await HCIControllerProbe().read(index: -1, timeout: .milliseconds(100)) == .failure(.noDevice))
    }

    @Test(arguments: [
        (UInt16(2), UInt8(11), "Intel, Bluetooth 5.2"),
        (UInt16(15), UInt8(6), "Broadcom, Bluetooth 4.0"),
        (UInt16(93), UInt8(9), "Realtek, Bluetooth 5.0"),
        (UInt16(10), UInt8(6), "Cambridge Silicon Radio (Qualcomm), Bluetooth 4.0"),
        (UInt16(305), UInt8(10), "Cypress, Bluetooth 5.1"),
        (UInt16(29), UInt8(12), "Qualcomm, Bluetooth 5.3"),
        (UInt16(4242), UInt8(15), "company id 4242, Bluetooth 6.1"),
        (UInt16(2), UInt8(40), "Intel, HCI version 40"),
    ])
    func manufacturerAndVersionNames(manufacturer: UInt16, version: UInt8, expected: String) {
        let info = ControllerInfo(manufacturer: manufacturer, hciVersion: version)
        #expect("\(info.manufacturerName), \(info.bluetoothVersion)" == expected)
    }

    @Test func controllerVerdicts() async {
        let adapter = AdapterFacts(path: "/org/bluez/hci0", properties: [:])
        func result(_ answer: Result<ControllerInfo, ControllerProbeFailure>, maxConnected: Int = 10) async -> CheckResult {
            await ControllerCheck(probe: StubControllerProbe([0: answer]), timeout: .seconds(1), maxConnected: maxConnected)
                .result(adapter, kernel: .present(controllers: ["hci0"]))
        }
        let csr = await result(.success(ControllerInfo(manufacturer: 10, hciVersion: 6, leSupported: true)), maxConnected: 4)
        #expect(csr.status == .ok)
        #expect(csr.detail == "Cambridge Silicon Radio (Qualcomm), Bluetooth 4.0, LE; LE links are limited by the firmware, not the spec: expect about 3-5 at once")
        #expect(csr.data["typical_le_links_high"] == 5)
        let busy = await result(.success(ControllerInfo(manufacturer: 93, hciVersion: 9, leSupported: true)))
        #expect(busy.detail.hasSuffix("machines.max_connected is 10, so spread machines over more adapters if links fail"))
        let classic = await result(.success(ControllerInfo(manufacturer: 15, hciVersion: 4, leSupported: false)))
        #expect(classic.status == .failed)
        #expect(classic.detail == "Broadcom, Bluetooth 2.1: no Bluetooth Low Energy, so no FTMS machine can connect")
        let denied = await result(.failure(.failed("cannot open hci0: EPERM (Operation not permitted)")))
        #expect(denied.status == .warning)
        #expect(denied.detail == "cannot read the controller: cannot open hci0: EPERM (Operation not permitted)")
    }

    /// Newer BlueZ names the controller on the adapter: used when HCI cannot be read.
    @Test func adapterPropertiesStandInForHCI() async {
        let adapter = AdapterFacts(path: "/org/bluez/hci3", properties: ["Manufacturer": .uint16(93), "Version": .byte(10)])
        let result = await ControllerCheck(probe: StubControllerProbe([:]), timeout: .seconds(1), maxConnected: 4)
            .result(adapter, kernel: .absent)
        #expect(result.status == .ok)
        #expect(result.detail.hasPrefix("Realtek, Bluetooth 5.1, LE"))
        #expect(result.data["source"] == "Adapter1 Manufacturer and Version")
    }
}

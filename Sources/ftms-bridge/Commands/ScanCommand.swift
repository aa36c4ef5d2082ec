import ProcessOutput
import ArgumentParser
import BlueZ
import Foundation

/// `ftms-bridge scan [--timeout S] [--json]` (contract §9): machines in range.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "List the SolidFocus machines in range.",
        discussion: "Uses the system bus, or DBUS_SYSTEM_BUS_ADDRESS when it is set."
    )

    @Option(help: "Seconds to discover for.")
    var timeout: Double = 5

    @Flag(help: "One JSON object per machine, one per line.")
    var json = false

    @Flag(help: "Also list any FTMS machine (service 0x1826), not only SolidFocus ones.")
    var anyFtms = false

    @OptionGroup var adapter: AdapterOptions

    func validate() throws {
        guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be between 0 and 600 seconds") }
    }

    func run() async throws {
        try await withBlueZ(command: "scan") { client in
            let machines = try await client.scan(
                for: .milliseconds(Int(timeout * 1000)), filter: adapter.filter(acceptGenericFTMS: anyFtms))
            if json {
                for machine in machines {
                    print(try ReportJSON.string(machine))
                }
            } else {
                print(Self.table(machines))
            }
        }
    }

    static func table(_ machines: [DiscoveredMachine]) -> String {
        guard !machines.isEmpty else { return "no machines found" }
        let rows = [["NAME", "ADDRESS", "TYPE", "RSSI"]] + machines.map {
            [$0.name, $0.address, $0.type?.rawValue ?? "unknown", $0.rssi.map { "\($0) dBm" } ?? "-"]
        }
        return renderTable(rows)
    }
}

import ArgumentParser
import BlueZ
import FTMS
import Foundation

/// `ftms-bridge monitor MACHINE [--json]` (SPEC §9): connect, initialise, stream decoded frames.
struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Connect to a machine and stream its decoded data and status.",
        discussion: "MACHINE is a name (SF-Bike-0001) or an address. Uses the system bus, or DBUS_SYSTEM_BUS_ADDRESS."
    )

    @Argument(help: "The machine's name or address.")
    var machine: String

    @Flag(help: "One JSON object per frame (SPEC §3.1 names).")
    var json = false

    @Option(help: "Stop after this many frames.")
    var count: Int?

    @Option(help: "Seconds to discover for when the machine is not already known.")
    var scanTimeout: Double = 5

    func run() async throws {
        try await withBlueZ(command: "monitor") { client in
            let filter = MachineFilter(acceptGenericFTMS: true)
            let matches = { (candidate: DiscoveredMachine) in
                candidate.name == machine || candidate.address.caseInsensitiveCompare(machine) == .orderedSame
            }
            var found = await client.machines(passing: filter).first(where: matches)
            if found == nil {
                found = try await client.scan(for: .milliseconds(Int(scanTimeout * 1000)), filter: filter).first(where: matches)
            }
            guard let target = found else { throw BlueZError.machineNotFound(machine) }
            let link = MachineLink(client: client, device: target.path)
            let info = try await link.connect()
            let stream = await link.notifications()
            if !json {
                print("connected to \(info.name) (\(info.address)), \(info.manufacturer ?? "?") \(info.model ?? "?"), \(info.kind.rawValue)")
            }
            var printed = 0
            var buffer = JSONBuffer()
            for await (characteristic, value) in stream {
                let message = value.withUnsafeBytes { FTMSMessage(characteristic: characteristic, decoding: $0) }
                buffer.removeAll()
                message.writeJSON(into: &buffer)
                print(json ? buffer.string : Self.readable(message, json: buffer.string))
                printed += 1
                if let count, printed >= count { break }
            }
            await link.disconnect()
        }
    }

    /// `name=value` pairs for data records, the JSON for everything else.
    static func readable(_ message: FTMSMessage, json: String) -> String {
        guard case .data(let record) = message else { return json }
        let fields = record.kind.layout.entries.compactMap { entry -> String? in
            guard let raw = record.values.raw(entry.field) else { return nil }
            let descriptor = entry.field.descriptor
            guard raw != descriptor.notAvailable else { return "\(descriptor.jsonName)=n/a" }
            var value = JSONBuffer(capacity: 16)
            value.appendFixedPoint(raw, scale: descriptor.scale)
            return "\(descriptor.jsonName)=\(value.string)"
        }
        var flags: [String] = []
        if record.truncated { flags.append("truncated") }
        if record.trailingBytes > 0 { flags.append("trailing_bytes=\(record.trailingBytes)") }
        return ([record.kind.characteristic.jsonName.description] + fields + flags).joined(separator: " ")
    }
}

import Clocks
import TestSupport
import Doctor
import Foundation
import JSON
import Store
import Workout

#if canImport(Glibc)
import Glibc
#endif

extension DoctorInputs {
    /// Inputs that look at nothing of this machine's: every path under `directory` (the
    /// sockets too, through `$RUNTIME_DIRECTORY`, so a daemon running on this box is never
    /// asked), no bluetoothd, a kernel without Bluetooth, a controller probe that finds nothing.
    /// A test that changes `environment` adds to it rather than replacing it.
    static func isolated(in directory: TemporaryDirectory, bus: String? = nil) -> DoctorInputs {
        var inputs = DoctorInputs(version: "9.9.9-test", environment: ["RUNTIME_DIRECTORY": directory.file("run")])
        inputs.defaultConfigPath = directory.file("etc/config.toml")
        inputs.busAddress = bus ?? "unix:path=\(directory.file("no-bus-here"))"
        inputs.standardBusAddress = "unix:path=\(directory.file("no-system-bus-here"))"
        inputs.stateDirectory = directory.file("state")
        inputs.policyDirectories = [directory.file("policy")]
        inputs.bluetoothSysfs = directory.file("sys/class/bluetooth")
        inputs.bluetoothdPaths = []
        inputs.kernelProbe = KernelBluetoothProbe { EAFNOSUPPORT }
        inputs.controllerProbe = StubControllerProbe([:])
        inputs.clock = WallClock { Fixed.now }
        // Generous limits: a refused port or a missing socket answers at once, and on a CI
        // machine starved by the other suites a short limit would race those answers.
        inputs.timeouts.backend = .seconds(15)
        inputs.timeouts.socket = .seconds(10)
        inputs.timeouts.bus = .seconds(10)
        inputs.timeouts.database = .seconds(20)
        return inputs
    }
}

enum Fixed {
    /// 2026-11-21T08:00:00Z.
    static let now = UTCTime(secondsSince1970: 1_795_248_000)

    /// A session record with a known start, for queue counts.
    static func session(_ number: Int, startedSecondsAgo: Int) -> SessionRecord {
        let start = now.adding(seconds: -startedSecondsAgo)
        let id = "00000000-0000-4000-8000-" + String(format: "%012d", number)
        let json: JSONValue = [
            "session_id": .string(id), "started_at": .string(start.iso8601), "ended_at": .string(start.adding(seconds: 600).iso8601),
            "duration": 600, "total_energy": 50, "total_distance": 4000,
        ]
        guard let record = SessionRecord(uploaded: json) else { preconditionFailure("a whole session object") }
        return record
    }
}

/// Controllers by index, as a table.
struct StubControllerProbe: ControllerProbe {
    var answers: [Int: Result<ControllerInfo, ControllerProbeFailure>]

    init(_ answers: [Int: Result<ControllerInfo, ControllerProbeFailure>]) {
        self.answers = answers
    }

    func read(index: Int, timeout: Duration) async -> Result<ControllerInfo, ControllerProbeFailure> {
        answers[index] ?? .failure(.noDevice)
    }
}

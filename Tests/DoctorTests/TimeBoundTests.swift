import TestSupport
import Doctor
import Foundation
import Testing

/// The doctor never hangs: with everything broken at once (no bus, a backend that swallows
/// packets, a bluetoothd that never answers) the whole run stays within its bound.
@Suite("Time bound")
struct TimeBoundTests {
    @Test func everythingBrokenStillAnswersInTime() async throws {
        let directory = try TemporaryDirectory()
        var inputs = DoctorInputs.isolated(in: directory)
        inputs.backendURL = "http://192.0.2.1:8080"
        inputs.busAddress = "tcp:host=192.0.2.1,port=4242"
        inputs.timeouts = DoctorTimeouts()
        let started = ContinuousClock.now
        let report = await Doctor(inputs: inputs).run()
        let elapsed = ContinuousClock.now - started
        // The default limits run side by side (about 3 s here); the bound is loose because the
        // other suites may starve this one. What it proves is that nothing waits on the network.
        #expect(elapsed < .seconds(30), "took \(elapsed)")
        #expect(report.check("backend")?.status == .failed)
        #expect(report.check("dbus")?.status == .failed)
        #expect(report.exitStatus == 1)
    }

    @Test func aPortWithNothingListeningIsQuick() async throws {
        let directory = try TemporaryDirectory()
        var inputs = DoctorInputs.isolated(in: directory)
        inputs.backendURL = "http://127.0.0.1:\(try TestListener.closedPort())"
        let started = ContinuousClock.now
        let report = await Doctor(inputs: inputs).run()
        #expect(ContinuousClock.now - started < .seconds(30))
        let detail = report.check("backend")?.detail ?? ""
        #expect(report.check("backend")?.status == .failed)
        #expect(detail.contains("backend unreachable") || detail.contains("no answer"), "\(detail)")
    }
}

import TestSupport
import Doctor
import Foundation
import Testing

/// The doctor never hangs: with everything broken at once (no bus, a backend that swallows
/// packets, a bluetoothd that never answers) every check ends at its own limit and says so.
/// (How long that takes on a loaded machine is not the doctor's doing; a doctor that waited
/// on the network would hang, and the group's timeout would name the test.)
@Suite("Time bound")
struct TimeBoundTests {
    @Test func everythingBrokenStillAnswersInTime() async throws {
        let directory = try TemporaryDirectory()
        var inputs = DoctorInputs.isolated(in: directory)
        inputs.backendURL = "http://192.0.2.1:8080"
        inputs.busAddress = "tcp:host=192.0.2.1,port=4242"
        inputs.timeouts = DoctorTimeouts()
        let report = await Doctor(inputs: inputs).run()
        #expect(report.check("backend")?.status == .failed)
        #expect(report.check("dbus")?.status == .failed)
        #expect(report.exitStatus == 1)
    }

    @Test func aPortWithNothingListeningIsQuick() async throws {
        let directory = try TemporaryDirectory()
        var inputs = DoctorInputs.isolated(in: directory)
        inputs.backendURL = "http://127.0.0.1:\(try TestListener.closedPort())"
        let report = await Doctor(inputs: inputs).run()
        let detail = report.check("backend")?.detail ?? ""
        #expect(report.check("backend")?.status == .failed)
        #expect(detail.contains("backend unreachable") || detail.contains("no answer"), "\(detail)")
    }
}

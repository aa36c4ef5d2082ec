import TestSupport
import Doctor
import Foundation
import Testing

@Suite("Config check")
struct ConfigCheckTests {
    @Test func aMissingDefaultFileMeansDefaults() async throws {
        let directory = try TemporaryDirectory()
        let report = await Doctor(inputs: .isolated(in: directory)).run()
        let config = try #require(report.check("config"))
        #expect(config.status == .warning)
        #expect(config.detail == "\(directory.file("etc/config.toml")) does not exist: defaults in use")
        #expect(config.data["defaults_in_use"] == true)
    }

    @Test func aMissingExplicitFileIsAFailure() async throws {
        let directory = try TemporaryDirectory()
        var inputs = DoctorInputs.isolated(in: directory)
        inputs.configPath = directory.file("given.toml")
        let config = try #require(await Doctor(inputs: inputs).run().check("config"))
        #expect(config.status == .failed)
        #expect(config.detail == "\(directory.file("given.toml")) does not exist")
    }
}

@Suite("Config check with files")
struct ConfigFileCheckTests {
    @Test func aValidFileIsUsedByTheOtherChecks() async throws {
        let directory = try TemporaryDirectory()
        let port = try TestListener.closedPort()
        try directory.write("etc/config.toml", """
            [backend]
            url = "http://127.0.0.1:\(port)"

            [metrics_socket]
            path = "\(directory.file("m.sock"))"
            """)
        var inputs = DoctorInputs.isolated(in: directory)
        inputs.busAddress = nil
        inputs.environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(directory.file("none"))"
        let report = await Doctor(inputs: inputs).run()
        let config = try #require(report.check("config"))
        #expect(config.status == .ok, "\(config.detail)")
        #expect(config.detail == "\(directory.file("etc/config.toml")) is valid (2 keys set)")
        #expect(config.data["keys_set"] == ["backend.url", "metrics_socket.path"])
        #expect(report.check("backend")?.data["source"] == "config backend.url")
        #expect(report.check("backend")?.data["url"] == .string("http://127.0.0.1:\(port)"))
        #expect(report.check("metrics-socket")?.data["path"] == .string(directory.file("m.sock")))
    }

    @Test func aBadFileFailsWithTheConfigErrorsLineAndTheRestRunsOnDefaults() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("etc/config.toml", "[machines]\nallw = [\"SF-Bike-0001\"]\n")
        var inputs = DoctorInputs.isolated(in: directory)
        inputs.configPath = path
        let report = await Doctor(inputs: inputs).run()
        let config = try #require(report.check("config"))
        #expect(config.status == .failed)
        #expect(config.detail.hasPrefix("\(path): machines.allw: unknown key"))
        #expect(config.data["defaults_in_use"] == true)
        #expect(report.check("backend")?.detail == "no backend configured: sessions queue on the gateway")
        #expect(report.exitStatus == 1)
    }

    @Test func theStateDirectoryComesFromSystemdWhenTheFileDoesNotSetIt() async throws {
        let directory = try TemporaryDirectory()
        var inputs = DoctorInputs.isolated(in: directory)
        inputs.stateDirectory = nil
        inputs.environment = ["STATE_DIRECTORY": directory.file("from-systemd"), "RUNTIME_DIRECTORY": directory.file("run")]
        let report = await Doctor(inputs: inputs).run()
        #expect(report.check("state-dir")?.data["source"] == "STATE_DIRECTORY")
        #expect(report.check("state-dir")?.data["path"] == .string(directory.file("from-systemd")))
        #expect(report.check("control-socket")?.data["path"] == .string(directory.file("run/control.sock")))
    }
}

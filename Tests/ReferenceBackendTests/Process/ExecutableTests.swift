import TestSupport
import Foundation
import Testing
@testable import ReferenceBackend

@Suite("ftms-backend as a real process on loopback")
struct ExecutableTests {
    @Test("prints its port, serves, logs one line per request without tokens, stops on SIGTERM")
    func lifecycle() async throws {
        let backend = try await BackendProcess(["--token-lifetime", "60"])
        #expect(backend.stdoutLine == "listening http://127.0.0.1:\(backend.port)")
        let login = try await API.connect(port: backend.port) { api in
            let login = try await api.login("alice")
            #expect(login.response["expires_in"] == 60)
            #expect(try await api.upload([Sessions.make(1)], token: login.access)["success_count"] == 1)
            #expect(try await api.refresh(login.refresh).status == 200)
            return login
        }
        #expect(await backend.stop() == 0)
        let lines = backend.stderr.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("POST /auth/sso/apple 200 ") == true)
        #expect(lines.last?.hasPrefix("POST /auth/refresh 200 ") == true)
        for secret in [login.access, login.refresh, "test:alice"] {
            #expect(!backend.stderr.contains(secret))
        }
    }

    @Test("--exit-with-stdin: the backend exits when its parent's end of stdin closes")
    func exitWithStdin() async throws {
        let backend = try await BackendProcess(["--quiet"])
        backend.closeLifeline()
        // Left running at the limit (a hang detector, not a time bound): the backend must exit by itself.
        let status = await ChildExit.exit(of: backend.pid, within: .seconds(120), killAtEnd: false)
        #expect(status == 0, "ftms-backend outlived its stdin")
        if status != nil { backend.markReaped() }
    }

    @Test("fault flags act from the first call")
    func faultFlags() async throws {
        let backend = try await BackendProcess(["--quiet", "--fault", "5xx:route=sso,next=1,status=500"])
        try await API.connect(port: backend.port) { api in
            #expect(try await api.call(.post, "/auth/sso/apple", body: ["id_token": "test:a", "device_id": "d"]).status == 500)
            _ = try await api.login("a", device: "d")
        }
        #expect(await backend.stop() == 0)
        #expect(backend.stderr.isEmpty)
    }

    @Test("a state file carries sessions and tokens across a SIGKILL and restart")
    func killAndRestart() async throws {
        let scratch = try TemporaryDirectory(prefix: "ftms-backend")
        let path = scratch.file("state.jsonl")
        let first = try await BackendProcess(["--quiet", "--state", path])
        let login = try await API.connect(port: first.port) { api in
            let login = try await api.login("alice")
            _ = try await api.upload((1...20).map { Sessions.make($0) }, token: login.access)
            return login
        }
        #expect(await first.stop(SIGKILL) == 128 + SIGKILL)
        let second = try await BackendProcess(["--quiet", "--state", path])
        try await API.connect(port: second.port) { api in
            let sessions = try await api.call(.get, "/sessions", bearer: login.access)
            let again = try await api.upload((1...20).map { Sessions.make($0) }, token: login.access)
            #expect(sessions["sessions"]?.arrayCount == 20 && again["duplicate_count"] == 20)
        }
        #expect(await second.stop() == 0)
    }

    @Test(
        "bad flags and a bad state file are one-line errors",
        arguments: [
            (["--fault", "boom"], Int32(64), "--fault boom: unknown fault kind"),
            (["--time-zone", "Mars/Olympus"], 64, "--time-zone Mars/Olympus is not a known zone"),
            (["--port", "70000"], 64, "--port must be 0–65535"),
            (["--state", "/proc/version"], 1, "ftms-backend: state file /proc/version line 1 is not a state record"),
        ])
    func refusals(arguments: [String], status: Int32, message: String) async throws {
        let result = try await BackendProcess.run(arguments)
        #expect(result.status == status)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    /// Every one of 10,000 sessions in 500 batches is stored once. How fast is measured by
    /// `scripts/bench-upload.sh`, not here: a timed unit test only measures the CI machine.
    @Test("10,000 sessions in batches of 20 are all absorbed, once each")
    func tenThousandSessionsInBatchesOfTwenty() async throws {
        let backend = try await BackendProcess(["--quiet"])
        try await API.connect(port: backend.port) { api in
            let login = try await api.login("bench")
            let batches = (0..<500).map { batch in (1...20).map { Sessions.make(batch * 20 + $0) } }
            for batch in batches {
                let response = try await api.upload(batch, token: login.access)
                guard response["success_count"] == 20 else { throw TestFailure("batch refused: \(response.json)") }
            }
            #expect(try await api.call(.get, "/_admin/sessions")["total"] == 10_000)
        }
        #expect(await backend.stop() == 0)
    }
}

import TestSupport
import DaemonConfig
import Foundation
import Testing
@testable import Doctor

/// The metrics and control socket checks against real Unix sockets.
@Suite("Socket checks")
struct SocketChecksTests {
    static let hello = #"{"type":"hello","machine":null,"sessionId":null,"timestamp":1763712000.123,"seq":1041,"version":"1.0","payload":{"machines":[]}}"# + "\n"

    func check(_ kind: SocketCheck.Kind, _ path: String, mode: UInt32 = 0o660, group: String = "") async -> CheckResult {
        await SocketCheck(
            kind: kind, settings: DaemonConfig.SocketSettings(path: path, group: group, mode: mode), timeout: .milliseconds(500)
        ).run()
    }

    @Test func aMetricsSocketThatSaysHello() async throws {
        let directory = try TemporaryDirectory()
        let listener = try TestListener.unix(directory.file("metrics.sock"), greeting: Self.hello)
        defer { listener.stop() }
        let result = await check(.metrics, directory.file("metrics.sock"))
        #expect(result.status == .ok, "\(result.detail)")
        #expect(result.detail == "\(directory.file("metrics.sock")): mode 0660, answers with hello (version 1.0, seq 1041)")
        #expect(result.data["seq"] == 1041)
        let wrongMode = await check(.metrics, directory.file("metrics.sock"), mode: 0o666)
        #expect(wrongMode.status == .warning)
        #expect(wrongMode.detail.hasSuffix("(mode 0660, configured 0666)"))
    }

    @Test func aSocketThatGreetsWithSomethingElseOrNothing() async throws {
        let directory = try TemporaryDirectory()
        let chatty = try TestListener.unix(directory.file("other.sock"), greeting: "SSH-2.0-OpenSSH\n")
        defer { chatty.stop() }
        let other = await check(.metrics, directory.file("other.sock"))
        #expect(other.status == .failed)
        #expect(other.detail.hasSuffix("answered, but not in the metrics protocol"))

        // A listener that never speaks: the check gives up at its own 500 ms limit (the detail
        // says so), however long a loaded machine takes to get there.
        let silent = try TestListener.unix(directory.file("silent.sock"), greeting: nil)
        defer { silent.stop() }
        let mute = await check(.metrics, directory.file("silent.sock"))
        #expect(mute.status == .failed)
        #expect(mute.detail.hasSuffix("accepted a connection but sent no hello within 500 ms"))
    }

    @Test func aStaleSocketIsAFailureAndAMissingOneAWarning() async throws {
        let directory = try TemporaryDirectory()
        try TestListener.staleUnix(directory.file("control.sock"))
        let stale = await check(.control, directory.file("control.sock"), mode: 0o755)
        #expect(stale.status == .failed)
        #expect(stale.detail.contains("is there but nobody answers: ECONNREFUSED"))
        let missing = await check(.control, directory.file("nothing.sock"))
        #expect(missing.status == .warning)
        #expect(missing.detail == "\(directory.file("nothing.sock")) is not there: the daemon is not running, or uses another path")
        try "not a socket".write(toFile: directory.file("plain"), atomically: true, encoding: .utf8)
        #expect(await check(.control, directory.file("plain")).status == .failed)
    }

    @Test func aControlSocketThatAnswersStatus() async throws {
        let directory = try TemporaryDirectory()
        let answer = #"{"ok":true,"id":"doctor","result":{"version":"0.6.0","uptime_s":7200,"machines":[{},{}]}}"# + "\n"
        let listener = try TestListener.unix(directory.file("control.sock"), greeting: answer, mode: 0o600)
        defer { listener.stop() }
        let result = await check(.control, directory.file("control.sock"), mode: 0o600)
        #expect(result.status == .ok)
        #expect(result.detail == "\(directory.file("control.sock")): mode 0600, answers status (daemon 0.6.0, up 2 h, 2 machines)")
        #expect(result.data["uptime_s"] == 7200)
        let wrongGroup = await check(.control, directory.file("control.sock"), mode: 0o600, group: "no-such-group-xyz")
        #expect(wrongGroup.status == .warning)
        #expect(wrongGroup.detail.contains("configured no-such-group-xyz"))
    }

    @Test func aControlSocketThatRefusesStatusOrSaysNothing() async throws {
        let directory = try TemporaryDirectory()
        let refusing = try TestListener.unix(directory.file("busy.sock"), greeting: #"{"ok":false,"error":"shutting down","code":"unavailable"}"# + "\n", mode: 0o600)
        defer { refusing.stop() }
        let busy = await check(.control, directory.file("busy.sock"), mode: 0o600)
        #expect(busy.status == .warning)
        #expect(busy.detail.hasSuffix("answers status with an error: shutting down"))
        let mute = try TestListener.unix(directory.file("mute.sock"), greeting: nil, mode: 0o600)
        defer { mute.stop() }
        let silent = await check(.control, directory.file("mute.sock"), mode: 0o600)
        #expect(silent.status == .failed)
        #expect(silent.detail.hasSuffix("accepted a connection but did not answer status within 500 ms"))
    }
}

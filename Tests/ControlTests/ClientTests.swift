@testable import Control
import OwnThread
import TestSupport
import Foundation
import Testing

/// The client against peers that are absent, silent or talk nonsense.
@Suite("Control client")
struct ClientTests {
    @Test func noFileMeansNoDaemon() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/control.sock"
        let error = #expect(throws: ControlClientError.noDaemon(path: path)) { try ControlClient(socketPath: path).request(.status) }
        #expect(error?.isNoDaemon == true)
        #expect(throws: ControlClientError.noDaemon(path: "/nonexistent-dir/x/control.sock")) {
            try ControlClient(socketPath: "/nonexistent-dir/x/control.sock").request(.status)
        }
    }

    @Test func aStaleFileMeansNoDaemon() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/control.sock"
        let stale = try RawListener(path: path, listening: false)
        #expect(throws: ControlClientError.noDaemon(path: path)) { try ControlClient(socketPath: path).request(.status) }
        withExtendedLifetime(stale) {}
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/control.sock"
        let silent = try RawListener(path: path, listening: true)
        let started = ContinuousClock.now
        let error = await #expect(throws: ControlClientError.timedOut(path: path, after: .milliseconds(300))) {
            try await onOwnThread { try ControlClient(socketPath: path, timeout: .milliseconds(300)).request(.upload) }
        }
        // The client waited out its own timeout; how much longer a loaded machine took is not its doing.
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(error?.isNoDaemon == false)
        #expect(error?.description == "no answer on \(path) within 0.3 seconds")
        withExtendedLifetime(silent) {}
    }

    @Test(arguments: [
        ("garbage\n", "not JSON: unexpected character at byte 0"),
        (#"{"ok":true,"id":1}"# + "\n", #""ok" is true but "result" is not an object"#),
        (#"{"ok":true,"id":"other","result":{}}"# + "\n", #"it answers request "other" instead of"#),
        (#"{"ok":true,"result":{}"#, "it stops after 22 bytes, without a newline"),
    ])
    func garbageAnswersAreOneLineErrors(answer: String, reason: String) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/control.sock"
        let peer = try RawListener(path: path, listening: true)
        let serving = Task { await peer.answerOnce(with: answer) }
        let client = ControlClient(socketPath: path, timeout: .seconds(20))
        let result = try await onOwnThread { () -> ControlClientError? in
            do {
                _ = try client.request(.status)
                return nil
            } catch let error as ControlClientError {
                return error
            }
        }
        await serving.value
        guard case .badAnswer(let errorPath, let text)? = result else {
            Issue.record("expected a bad answer, got \(String(describing: result))")
            return
        }
        #expect(errorPath == path)
        #expect(text.hasPrefix(reason))
        #expect(!(result?.description.contains("\n") ?? true))
    }

    @Test func aPeerThatClosesAtOnceIsNamedSo() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/control.sock"
        let peer = try RawListener(path: path, listening: true)
        let serving = Task { await peer.answerOnce(with: "") }
        let client = ControlClient(socketPath: path, timeout: .seconds(20))
        await #expect(throws: ControlClientError.closedWithoutAnswer(path: path)) { try await onOwnThread { try client.request(.status) } }
        await serving.value
    }

    @Test func aBusyRefusalIsAnAnswerNotAnError() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/control.sock"
        let peer = try RawListener(path: path, listening: true)
        let serving = Task { await peer.answerOnce(with: #"{"ok":false,"error":"full","code":"busy"}"# + "\n") }
        let client = ControlClient(socketPath: path, timeout: .seconds(20))
        let response = try await onOwnThread { try client.request(.status) }
        #expect(response.failure == ControlFailure(code: .busy, message: "full"))
        await serving.value
    }

    @Test func descriptionsAreOneLine() {
        let errors: [ControlClientError] = [
            .noDaemon(path: "/p"), .permissionDenied(path: "/p"), .timedOut(path: "/p", after: .seconds(1)),
            .closedWithoutAnswer(path: "/p"), .badAnswer(path: "/p", reason: "r"), .pathTooLong(path: "/p"),
            .system(operation: "connect to", path: "/p", errno: 5),
        ]
        for error in errors { #expect(!error.description.isEmpty && !error.description.contains("\n")) }
        #expect(ControlClientError.system(operation: "connect to", path: "/p", errno: 5).description == "cannot connect to /p: Input/output error")
    }
}

@testable import Control
import LocalSocket
import OwnThread
import TestSupport
import Foundation
import Synchronization
import Testing

/// The server over real Unix sockets: round trips, ordering, limits and bad clients.
@Suite("Control server")
struct ServerTests {
    @Test func everyCommandRoundTripsThroughTheClient() async throws {
        try await withServer { fixture in
            for request in ProtocolTests.everyCommand {
                let client = fixture.client
                let response = try await onOwnThread { try client.request(request) }
                let result = try #require(response.resultJSON)
                #expect(try ControlRequest(parsing: result) == request)
            }
        }
    }

    @Test func failuresReachTheClientWithTheirCode() async throws {
        let handler = ClosureHandler { request in
            .failure(.unknownMachine, "no machine \(request.machine ?? "?") (known: SF-Bike-0001)")
        }
        try await withServer(handler: handler) { fixture in
            let client = fixture.client
            let response = try await onOwnThread { try client.request(.start(machine: "SF-Bike-9")) }
            #expect(response.failure == ControlFailure(code: .unknownMachine, message: "no machine SF-Bike-9 (known: SF-Bike-0001)"))
            #expect(!response.isOK)
        }
    }

    @Test func idsAreEchoedAndBadLinesDoNotEndTheConnection() async throws {
        try await withServer { fixture in
            let lines = try await onOwnThread {
                var stream = try fixture.connect()
                try stream.send("{\"id\":\"abc\",\"command\":\"status\"}\nhello\n\n  \n{\"id\":7,\"command\":\"launch\"}\r\n{\"command\":\"machines\",\"id\":-1}\n")
                return try (0..<4).map { _ in try stream.line() }
            }
            #expect(lines == [
                #"{"ok":true,"id":"abc","result":{"command":"status"}}"#,
                #"{"ok":false,"error":"not JSON: unexpected character at byte 0","code":"bad_request"}"#,
                #"{"ok":false,"id":7,"error":"unknown command \"launch\" (known: status, machines, set_resistance, set_power, start, stop, pause, reset, upload, start_training, stop_training, handover)","code":"bad_request"}"#,
                #"{"ok":true,"id":-1,"result":{"command":"machines"}}"#,
            ])
        }
    }

    /// Fifty requests written at once, handled with random delays: answered in order, and
    /// never two of one connection in the handler at the same time.
    @Test func requestsOfOneConnectionAreHandledInOrderOneAtATime() async throws {
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let handler = ClosureHandler { request in
            if inside.add(1, ordering: .sequentiallyConsistent).newValue > 1 { overlaps.add(1, ordering: .sequentiallyConsistent) }
            try? await Task.sleep(for: .microseconds(Int.random(in: 0...3000)))
            inside.subtract(1, ordering: .sequentiallyConsistent)
            return (try? .success(resultJSON: request.jsonLine())) ?? .ok
        }
        try await withServer(handler: handler) { fixture in
            let answers = try await onOwnThread {
                var stream = try fixture.connect()
                let requests = (1...50).map { ControlRequest.setPower(machine: "m", watts: $0).jsonLine(id: .integer(Int64($0))) + "\n" }
                try stream.send(requests.joined())
                return try (1...50).map { _ in try stream.line() }
            }
            for (index, answer) in answers.enumerated() {
                #expect(answer == #"{"ok":true,"id":\#(index + 1),"result":{"command":"set_power","machine":"m","watts":\#(index + 1)}}"#)
            }
            #expect(overlaps.load(ordering: .sequentiallyConsistent) == 0)
        }
    }

    /// Connection A's request waits inside the handler until connection B's has been handled:
    /// only possible if different connections are handled concurrently.
    @Test func differentConnectionsAreHandledConcurrently() async throws {
        let (released, release) = AsyncStream<Void>.makeStream()
        let handler = ClosureHandler { request in
            switch request {
            case .start:
                for await _ in released { return .ok }
                return .failure(.failed, "never released")
            default:
                release.yield()
                return .ok
            }
        }
        try await withServer(handler: handler) { fixture in
            let client = fixture.client
            async let first = onOwnThread { try client.request(.start(machine: "a")) }
            try await Task.sleep(for: .milliseconds(50))
            let second = try await onOwnThread { try client.request(.stop(machine: "b")) }
            #expect(second.isOK)
            #expect(try await first.isOK)
        }
    }

    @Test func aHundredClientsAtOnceAllGetTheirOwnAnswer() async throws {
        try await withServer(ControlServerConfiguration(path: ServerFixture.replacedPath, maxClients: 128)) { fixture in
            let client = fixture.client
            let answers = try await withThrowingTaskGroup(of: (Int, ControlResponse).self) { group in
                for number in 0..<100 {
                    group.addTask {
                        try await onOwnThread { (number, try client.request(.setPower(machine: "m\(number)", watts: number))) }
                    }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            #expect(answers.count == 100)
            for (number, response) in answers {
                #expect(try ControlRequest(parsing: try #require(response.resultJSON)) == .setPower(machine: "m\(number)", watts: number))
            }
        }
    }

    /// When every place is taken by a client whose request is being handled, there is no one
    /// to make room: a newcomer is told `busy` and closed.
    @Test func clientsOverTheLimitAreRefusedPolitelyWhileAllAreServed() async throws {
        let working = Mutex(0)
        let slow = ClosureHandler { _ in
            working.withLock { $0 += 1 }
            try? await Task.sleep(for: .seconds(2))
            return .ok
        }
        try await withServer(ControlServerConfiguration(path: ServerFixture.replacedPath, maxClients: 2), handler: slow) { fixture in
            let heard = Heard()
            fixture.squat(sending: "{\"command\":\"upload\"}\n", heard: heard)
            fixture.squat(sending: "{\"command\":\"upload\"}\n", heard: heard)
            try await waitUntil("both requests in hand") { working.withLock { $0 } == 2 }
            try await onOwnThread {
                var third = try fixture.connect()
                try third.expectLine(#"{"ok":false,"error":"the control socket has all the clients it takes (2); try again shortly","code":"busy"}"#)
                third.expectEnd()
            }
            try await waitUntil("both answered") { heard.lines.withLock { $0.count } == 2 }
            #expect(heard.lines.withLock { $0 } == [#"{"ok":true,"result":{}}"#, #"{"ok":true,"result":{}}"#])
            // A place freed is a place taken: the count drops as the server sees the close.
            try await waitUntil("the first two gone") { fixture.server.connectedClients == 0 }
            let client = fixture.client
            #expect(try await onOwnThread { try client.request(.status) }.isOK)
        }
    }

    @Test func anOversizeLineIsAnsweredThenClosed() async throws {
        try await withServer(ControlServerConfiguration(path: ServerFixture.replacedPath, maximumLineLength: 1024)) { fixture in
            try await onOwnThread {
                var stream = try fixture.connect()
                try stream.send("{\"command\":\"status\",\"id\":1}\n" + String(repeating: "x", count: 70_000))
                try stream.expectLine(#"{"ok":true,"id":1,"result":{"command":"status"}}"#)
                try stream.expectLine(#"{"ok":false,"error":"request line longer than 1024 bytes; closing","code":"line_too_long"}"#)
                stream.expectEnd()
            }
        }
    }

    @Test func aLongLineWithinTheLimitIsRead() async throws {
        try await withServer { fixture in
            let name = String(repeating: "n", count: 256)
            let padding = String(repeating: " ", count: 60_000)
            let answer = try await onOwnThread {
                var stream = try fixture.connect()
                try stream.send("{\"command\":\"start\",\(padding)\"machine\":\"\(name)\"}\n")
                return try stream.line()
            }
            #expect(answer == #"{"ok":true,"result":{"command":"start","machine":"\#(name)"}}"#)
        }
    }

    @Test func aClientThatClosesItsSideGetsEveryAnswerIncludingAnUnterminatedLastLine() async throws {
        try await withServer { fixture in
            try await onOwnThread {
                var stream = try fixture.connect()
                try stream.send("{\"command\":\"machines\"}\n{\"command\":\"status\"}")
                stream.shutdownWrite()
                try stream.expectLine(#"{"ok":true,"result":{"command":"machines"}}"#)
                try stream.expectLine(#"{"ok":true,"result":{"command":"status"}}"#)
                stream.expectEnd()
            }
        }
    }

    @Test func halfLinesAndAbruptClosesLeaveTheServerServing() async throws {
        let slow = ClosureHandler { request in
            try? await Task.sleep(for: .milliseconds(30))
            return .ok
        }
        try await withServer(handler: slow) { fixture in
            try await onOwnThread {
                for _ in 0..<20 {
                    let stream = try fixture.connect()
                    try stream.send("{\"command\":\"sta")
                }
                for _ in 0..<20 {
                    let stream = try fixture.connect()
                    try stream.send("{\"command\":\"status\"}\n")  // closed while the handler works
                }
            }
            for _ in 0..<2000 where fixture.server.connectedClients > 0 { try await Task.sleep(for: .milliseconds(5)) }
            #expect(fixture.server.connectedClients == 0)
            let client = fixture.client
            #expect(try await onOwnThread { try client.request(.status) }.isOK)
        }
    }

    @Test func idleClientsAreToldAndClosed() async throws {
        try await withServer(ControlServerConfiguration(path: ServerFixture.replacedPath, idleTimeout: .milliseconds(200))) { fixture in
            let started = ContinuousClock.now
            try await onOwnThread {
                var stream = try fixture.connect()
                try stream.expectLine(#"{"ok":false,"error":"no request for 0.2 seconds; closing","code":"timeout"}"#)
                stream.expectEnd()
            }
            #expect(ContinuousClock.now - started >= .milliseconds(200))
        }
    }

    /// Clients that fill every place and then send half a line (or nothing) do not lock the
    /// operator out: a new client takes the place of the one that has kept the server waiting
    /// longest, which is told why and closed.
    @Test func aFloodOfIdleClientsDoesNotLockOutARealOne() async throws {
        try await withServer(ControlServerConfiguration(path: ServerFixture.replacedPath, maxClients: 4)) { fixture in
            let heard = Heard()
            for _ in 0..<4 {
                fixture.squat(sending: "{\"command\":\"sta", heard: heard)
            }
            try await waitUntil("four clients admitted") { fixture.server.connectedClients == 4 }
            let client = fixture.client
            let answer = try await onOwnThread { try client.request(.status) }
            #expect(answer.isOK, "\(answer)")
            // One squatter made room, and was told so.
            try await waitUntil("a squatter told") { !heard.lines.withLock { $0.isEmpty } }
            #expect(heard.lines.withLock { $0 } == [
                #"{"ok":false,"error":"closed to make room for another client: the control socket takes 4 at once, and this one sent no request for the longest","code":"timeout"}"#,
            ])
        }
    }

    /// The idle timer counts from the last whole request: a client that trickles a line a
    /// byte at a time, never finishing it, is closed all the same.
    @Test func aClientTricklingAnEndlessLineTimesOut() async throws {
        try await withServer(ControlServerConfiguration(path: ServerFixture.replacedPath, idleTimeout: .milliseconds(300))) { fixture in
            let notice = try await onOwnThread { () -> String? in
                var stream = try fixture.connect()
                for _ in 0..<200 {
                    try stream.send("x")
                    do {
                        return String(decoding: try stream.readLine(deadline: .now + .milliseconds(50)), as: UTF8.self)
                    } catch UnixStreamError.timedOut {
                        continue
                    }
                }
                return nil
            }
            #expect(notice == #"{"ok":false,"error":"no request for 0.3 seconds; closing","code":"timeout"}"#)
        }
    }

    /// The timer waits on the client, not on the handler: a handler slower than the idle
    /// timeout still gets its answer through.
    @Test func aSlowHandlerDoesNotTimeItsClientOut() async throws {
        let slow = ClosureHandler { _ in
            try? await Task.sleep(for: .milliseconds(1200))
            return .ok
        }
        try await withServer(ControlServerConfiguration(path: ServerFixture.replacedPath, idleTimeout: .milliseconds(400)), handler: slow) { fixture in
            try await onOwnThread {
                var stream = try fixture.connect()
                try stream.send("{\"command\":\"upload\"}\n")
                try stream.expectLine(#"{"ok":true,"result":{}}"#)
                let notice = try stream.line()
                #expect(notice.contains(#""code":"timeout""#))
            }
        }
    }

    @Test func closeEndsClientsAndRemovesTheSocket() async throws {
        try await withServer { fixture in
            try await onOwnThread {
                var stream = try fixture.connect()
                try stream.send("{\"command\":\"status\"}\n")
                _ = try stream.line()
                let server = fixture.server
                let done = DispatchSemaphore(value: 0)
                Task {
                    await server.close()
                    done.signal()
                }
                done.wait()
                stream.expectEnd()
            }
            #expect(TemporaryDirectory.status(fixture.path) == nil)
            let client = fixture.client
            #expect(throws: ControlClientError.noDaemon(path: fixture.path)) { try client.request(.status) }
        }
    }
}

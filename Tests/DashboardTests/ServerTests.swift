import TestSupport
import Clocks
import Dashboard
import Foundation
import MetricsClient
import NIOCore
import NIOPosix
import Publish
import Synchronization
import Testing

/// The dashboard as it runs: a real metrics socket (Publish's server) feeding it, real HTTP on
/// loopback, clients that read, never read, or send garbage.
@Suite("DashboardServer", .serialized)
struct ServerTests {
    final class Fixture: Sendable {
        let directory: TemporaryDirectory
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let clients = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let metrics: MetricsServer
        let dashboard: DashboardServer
        let bound = BoundPort()
        let task = Mutex<Task<Void, any Error>?>(nil)

        init(limits: ReaderLimits = ReaderLimits(), token: AccessToken? = nil) async throws {
            directory = try TemporaryDirectory()
            let path = directory.path + "/metrics.sock"
            metrics = try await MetricsServer.listen(
                MetricsServerConfiguration(path: path, daemonVersion: "test"), on: group.next(), clock: .system)
            let source = MetricsSocketSource(client: MetricsSocketClient(path: path, group: group), gateway: "front", log: { _ in })
            dashboard = try DashboardServer(
                configuration: .init(listen: ListenAddress(host: "127.0.0.1", port: 0), token: token, limits: limits, heartbeat: .seconds(1)),
                sources: [source], clock: .system, log: { _ in })
            let application = dashboard.application { [bound] port in bound.set(port) }
            task.withLock { $0 = Task { try await application.run() } }
            try await waitUntil("the dashboard listening") { bound.port != 0 }
            try await waitUntil("the dashboard reading the socket") { await metrics.metrics.readersConnected == 1 }
        }

        var boundPort: Int { bound.port }

        func publish(_ type: MessageType, _ machine: String?, _ payload: String) async throws {
            let payload = try JSONPayload(validating: payload)
            _ = try await metrics.publish(type, machine: machine, payload: payload)
        }

        func client(stuck: Bool = false) async throws -> RawClient {
            try await RawClient.connect(port: boundPort, group: clients, stuck: stuck)
        }

        func shutdown() async {
            task.withLock { $0 }?.cancel()
            _ = await task.withLock { $0 }?.result
            await metrics.close()
            try? await clients.shutdownGracefully()
            try? await group.shutdownGracefully()
        }
    }

    final class BoundPort: Sendable {
        private let value = Mutex(0)
        var port: Int { value.withLock { $0 } }
        func set(_ port: Int) { value.withLock { $0 = port } }
    }

    static func with(limits: ReaderLimits = ReaderLimits(), token: AccessToken? = nil, _ body: (Fixture) async throws -> Void) async throws {
        let fixture = try await Fixture(limits: limits, token: token)
        do {
            try await body(fixture)
        } catch {
            await fixture.shutdown()
            throw error
        }
        await fixture.shutdown()
    }

    @Test
    func aBrowserGetsTheFloorAtOnceThenItsChanges() async throws {
        try await Self.with { fixture in
            try await fixture.publish(.machine, "SF-Bike-0001", Envelopes.machine("SF-Bike-0001", state: "ready"))
            try await fixture.publish(.sample, "SF-Bike-0001", Envelopes.bikeSample(power: 180))
            try await waitUntil("the sample in the hub") { await fixture.dashboard.hub.state.orderedTiles.first?.power == 180 }

            let page = try await fixture.client()
            try await page.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            try await waitUntil("the page") { page.text.contains("</html>") }
            #expect(page.text.hasPrefix("HTTP/1.1 200"))
            #expect(page.text.contains("new EventSource("))
            #expect(!page.text.contains("http://") && !page.text.contains("https://"), "nothing is fetched from elsewhere")

            let browser = try await fixture.client()
            try await browser.get("/events")
            try await waitUntil("the hello") { !browser.events("hello").isEmpty }
            #expect(browser.text.contains("content-type: text/event-stream") || browser.text.contains("Content-Type: text/event-stream"))
            let hello = try JSONDecoder().decode(FloorSnapshot.self, from: Data(browser.events("hello")[0].utf8))
            #expect(hello.tiles.map(\.name) == ["SF-Bike-0001"])
            #expect(hello.tiles.first?.power == 180 && hello.tiles.first?.spark.count == 1)
            #expect(hello.gateways.map(\.name) == ["front"] && hello.gateways.first?.online == true)

            try await fixture.publish(.machine, "SF-Bike-0001", #"{"state":"disconnected","name":"SF-Bike-0001","address":"x","type":"bike"}"#)
            try await waitUntil("the disconnect on the page") {
                browser.events("tile").contains { $0.contains(#""state":"disconnected""#) }
            }
            try await fixture.publish(.upload, nil, #"{"pending":1,"uploaded":4,"dead":0,"result":"ok"}"#)
            try await waitUntil("the upload strip") { browser.events("gateway").contains { $0.contains(#""uploaded":4"#) } }

            let json = try await fixture.client()
            try await json.send("GET /api/floor HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            try await waitUntil("the JSON floor") { json.isClosed }
            let body = try #require(json.text.components(separatedBy: "\r\n\r\n").last)
            let floor = try JSONDecoder().decode(FloorSnapshot.self, from: Data(body.utf8))
            #expect(floor.tiles.first?.state == "disconnected")
            #expect(await fixture.dashboard.hub.clientCount == 1)
            await browser.close()
            try await waitUntil("the closed browser forgotten") { await fixture.dashboard.hub.clientCount == 0 }
        }
    }

    /// A browser that never reads and three that send garbage: the one that reads still gets
    /// every state change promptly, the stuck one holds at most its limit, and the hub never waits.
    @Test
    func stuckAndRudeClientsCostBoundedMemoryAndSlowNothing() async throws {
        let limits = ReaderLimits(soft: 16 * 1024, hard: 64 * 1024)
        try await Self.with(limits: limits) { fixture in
            let stuck = try await fixture.client(stuck: true)
            try await stuck.get("/events")
            let reader = try await fixture.client()
            try await reader.get("/events")
            try await waitUntil("both streams open") { await fixture.dashboard.hub.clientCount == 2 }

            var rude: [RawClient] = []
            for garbage in ["\u{0}\u{1}\u{2}garbage\r\n\r\n", "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 20_000) + "\r\n\r\n", "POST /events HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"] {
                let client = try await fixture.client()
                try await client.send(garbage)
                rude.append(client)
            }
            for client in rude {
                try await waitUntil("an answer to garbage") { client.text.hasPrefix("HTTP/1.1 4") || client.isClosed }
            }

            let sample = Envelopes.bikeSample(power: 200) + String(repeating: " ", count: 0)
            let clock = ContinuousClock()
            var slowest = Duration.zero
            for index in 0..<3000 {
                let started = clock.now
                try await fixture.publish(.sample, "SF-Bike-\(1000 + index % 40)", sample)
                slowest = max(slowest, clock.now - started)
                if index % 500 == 499 {
                    try await fixture.publish(.machine, "SF-Bike-1000", Envelopes.machine("SF-Bike-1000", state: index % 1000 == 999 ? "ready" : "connecting"))
                }
            }
            try await fixture.publish(.machine, "SF-Bike-1001", Envelopes.machine("SF-Bike-1001", state: "disconnected"))
            try await waitUntil("the last state change at the reading browser") {
                reader.events("tile").contains { $0.contains(#""name":"SF-Bike-1001""#) && $0.contains("disconnected") }
            }
            try await waitUntil("the hub through every message") { await fixture.dashboard.hub.state.gateways["front"]?.lastSeq == 3007 }
            #expect(stuck.text.count < 64 * 1024, "the stuck browser took little")
            print("dashboard: 3000 samples with a stuck browser, slowest publish \(slowest)")
            await stuck.close()
            await reader.close()
            for client in rude { await client.close() }
        }
    }

    @Test
    func aTokenIsRequiredWhenConfigured() async throws {
        let token = try AccessToken(value: "correct-horse-battery-staple")
        try await Self.with(token: token) { fixture in
            let without = try await fixture.client()
            try await without.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            try await waitUntil("a refusal") { without.text.contains("\r\n\r\n") }
            #expect(without.text.hasPrefix("HTTP/1.1 401"))
            let wrong = try await fixture.client()
            try await wrong.send("GET /?token=correct-horse-battery-stapler HTTP/1.1\r\nHost: x\r\n\r\n")
            try await waitUntil("a refusal") { wrong.text.contains("\r\n\r\n") }
            #expect(wrong.text.hasPrefix("HTTP/1.1 401"))
            let with = try await fixture.client()
            try await with.send("GET /events?token=correct-horse-battery-staple HTTP/1.1\r\nHost: x\r\n\r\n")
            try await waitUntil("the stream") { !with.events("hello").isEmpty }
            let bearer = try await fixture.client()
            try await bearer.send("GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer correct-horse-battery-staple\r\n\r\n")
            try await waitUntil("the page") { bearer.text.contains("</html>") }
            for client in [without, wrong, with, bearer] { await client.close() }
        }
    }

    @Test
    func theGatewayGoingAwayShowsOfflineAndComingBackResyncs() async throws {
        try await Self.with { fixture in
            try await fixture.publish(.machine, "SF-Rower-0001", Envelopes.machine("SF-Rower-0001", state: "ready", type: "rower"))
            let browser = try await fixture.client()
            try await browser.get("/events")
            try await waitUntil("the rower") { await fixture.dashboard.hub.state.orderedTiles.count == 1 }
            try await waitUntil("the browser's hello") { !browser.events("hello").isEmpty }
            await fixture.metrics.close()
            try await waitUntil("the gateway offline on the page") {
                browser.events("gateway").contains { $0.contains(#""online":false"#) }
            }
            let path = fixture.directory.path + "/metrics.sock"
            let again = try await MetricsServer.listen(
                MetricsServerConfiguration(path: path, daemonVersion: "test"), on: fixture.group.next(), clock: .system)
            let ready = try JSONPayload(validating: Envelopes.machine("SF-Bike-0005", state: "ready"))
            _ = try await again.publish(.machine, machine: "SF-Bike-0005", payload: ready)
            try await waitUntil("a resync from the new daemon's hello", timeout: .seconds(30)) {
                browser.events("hello").count >= 2 && browser.events("hello").last?.contains("SF-Bike-0005") == true
            }
            let last = try JSONDecoder().decode(FloorSnapshot.self, from: Data((browser.events("hello").last ?? "").utf8))
            #expect(last.tiles.map(\.name) == ["SF-Bike-0005"], "the restarted daemon no longer knows the rower")
            #expect(last.gateways.first?.online == true)
            await again.close()
            await browser.close()
        }
    }
}

import DeterministicRandom
import NIOCore
import NIOPosix
import Telemetry
import Testing

/// The scrape endpoint over a real loopback socket.
@Suite("Prometheus endpoint")
struct EndpointTests {
    static func withEndpoint(_ metrics: DaemonMetrics = DaemonMetrics(version: "test"), _ body: (PrometheusEndpoint, any EventLoopGroup) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let endpoint = try await PrometheusEndpoint.listen(host: "127.0.0.1", port: 0, metrics: metrics, group: group)
        do {
            try await body(endpoint, group)
        } catch {
            await endpoint.close()
            try await group.shutdownGracefully()
            throw error
        }
        await endpoint.close()
        try await group.shutdownGracefully()
    }

    @Test func aScrapeReturnsTheCounters() async throws {
        let metrics = DaemonMetrics(version: "9.9")
        for _ in 0..<5 { metrics.notificationReceived(characteristic: "indoor_bike_data") }
        metrics.setMachinesConnected(2)
        try await Self.withEndpoint(metrics) { endpoint, group in
            #expect(endpoint.port > 0)
            let response = try await RawHTTP.get("/metrics", port: endpoint.port, group: group)
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
            #expect(response.headers["content-length"] == String(response.body.utf8.count))
            let values = samples(response.body)
            #expect(values[#"ftms_bridge_notifications_total{characteristic="indoor_bike_data"}"#] == 5)
            #expect(values["ftms_bridge_machines_connected"] == 2)
            // The next scrape sees what happened since.
            metrics.notificationReceived(characteristic: "indoor_bike_data")
            let again = samples(try await RawHTTP.get("/metrics?x=1", port: endpoint.port, group: group).body)
            #expect(again[#"ftms_bridge_notifications_total{characteristic="indoor_bike_data"}"#] == 6)
        }
    }

    @Test func routesAndMethods() async throws {
        try await Self.withEndpoint { endpoint, group in
            let index = try await RawHTTP.get("/", port: endpoint.port, group: group)
            #expect(index.status == 200 && index.body.contains("/metrics") && index.body.split(separator: "\n").count == 1)
            #expect(try await RawHTTP.get("/metricsx", port: endpoint.port, group: group).status == 404)
            #expect(try await RawHTTP.get("/favicon.ico", port: endpoint.port, group: group).status == 404)
            let post = try await RawHTTP.get("/metrics", port: endpoint.port, method: "POST", group: group)
            #expect(post.status == 405 && post.headers["allow"] == "GET, HEAD")
            #expect(try await RawHTTP.get("/metrics", port: endpoint.port, method: "DELETE", group: group).status == 405)
            let head = try await RawHTTP.get("/metrics", port: endpoint.port, method: "HEAD", group: group)
            #expect(head.status == 200 && head.body.isEmpty && Int(head.headers["content-length"] ?? "") ?? 0 > 100)
        }
    }

    /// Prometheus keeps its connection open between scrapes.
    @Test func keepAliveServesSeveralRequests() async throws {
        try await Self.withEndpoint { endpoint, group in
            let request = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
            let text = try await RawHTTP.exchange(port: endpoint.port, Array((request + request + "GET / HTTP/1.1\r\nConnection: close\r\n\r\n").utf8), group: group)
            #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count == 4, "three answers on one connection")
        }
    }

    @Test(arguments: [
        "GARBAGE\r\n\r\n",
        "GET / HTTP/1.1\r\nHost\r\n\r\n",
        "GET / HTTP/9.9\r\n\r\n",
        "GET /\u{1} HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length: abc\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
        "GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n",
    ])
    func malformedRequestsGet400(_ request: String) async throws {
        try await Self.withEndpoint { endpoint, group in
            let text = try await RawHTTP.exchange(port: endpoint.port, Array(request.utf8), group: group)
            #expect(text.hasPrefix("HTTP/1.1 400"), "\(text)")
            #expect(try await RawHTTP.get("/metrics", port: endpoint.port, group: group).status == 200, "still serving")
        }
    }

    @Test func anOversizedRequestGets431() async throws {
        try await Self.withEndpoint { endpoint, group in
            let huge = "GET /metrics HTTP/1.1\r\nX-Pad: \(String(repeating: "a", count: 20_000))\r\n\r\n"
            let text = try await RawHTTP.exchange(port: endpoint.port, Array(huge.utf8), group: group)
            #expect(text.hasPrefix("HTTP/1.1 431"), "\(text.prefix(80))")
            let body = "POST /metrics HTTP/1.1\r\nContent-Length: 100000\r\n\r\n" + String(repeating: "b", count: 100_000)
            let answer = try await RawHTTP.exchange(port: endpoint.port, Array(body.utf8), group: group)
            #expect(answer.hasPrefix("HTTP/1.1 4"), "\(answer.prefix(80))")
        }
    }

    /// Random bytes never crash the server; each gets an error, a closed connection, or (a
    /// request the parser still waits on) nothing before the client gives up.
    @Test func garbageNeverCrashesTheServer() async throws {
        try await Self.withEndpoint { endpoint, group in
            var random = SplitMix64(seed: 99)
            for _ in 0..<300 {
                var bytes = random.bytes(count: Int.random(in: 1...600, using: &random))
                // Half of them look like a request line at first, to get past the method.
                if Bool.random(using: &random) { bytes = Array("GET /".utf8) + bytes }
                let text = try await RawHTTP.exchange(port: endpoint.port, bytes + Array("\r\n\r\n".utf8), timeout: .milliseconds(500), group: group)
                #expect(text.isEmpty || text.hasPrefix("HTTP/1.1 4") || text.hasPrefix("HTTP/1.0 4") || text.hasPrefix("HTTP/1.1 200"), "\(text.prefix(60))")
            }
            #expect(try await RawHTTP.get("/metrics", port: endpoint.port, group: group).status == 200)
        }
    }

    @Test(arguments: ["0.0.0.0", "192.168.1.10", "10.0.0.1", "::", "::ffff:127.0.0.1", "example.com", "", "127.0.0", "localhost.example"])
    func refusesANonLoopbackHost(_ host: String) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        await #expect(throws: PrometheusEndpointError.notLoopback(host)) {
            try await PrometheusEndpoint.listen(host: host, port: 0, metrics: DaemonMetrics(version: "x"), group: group)
        }
        try await group.shutdownGracefully()
    }

    @Test(arguments: ["localhost", "127.0.0.1", "127.8.9.10"])
    func acceptsLoopback(_ host: String) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let endpoint = try await PrometheusEndpoint.listen(host: host, port: 0, metrics: DaemonMetrics(version: "x"), group: group)
        #expect(endpoint.port > 0)
        await endpoint.close()
        try await group.shutdownGracefully()
    }

    @Test func aTakenPortIsAOneLineError() async throws {
        try await Self.withEndpoint { endpoint, group in
            do {
                _ = try await PrometheusEndpoint.listen(host: "127.0.0.1", port: endpoint.port, metrics: DaemonMetrics(version: "x"), group: group)
                Issue.record("bound a taken port")
            } catch let error as PrometheusEndpointError {
                guard case .bindFailed(_, let port, _) = error else { throw error }
                #expect(port == endpoint.port)
                #expect(!error.description.contains("\n"))
            }
        }
    }

    /// close() ends the listener and the keep-alive connections with it.
    @Test func closeEndsEverything() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let endpoint = try await PrometheusEndpoint.listen(host: "127.0.0.1", port: 0, metrics: DaemonMetrics(version: "x"), group: group)
        let port = endpoint.port
        // A keep-alive client that never closes: close() must end it. The client's own limit
        // is an hour, so only the endpoint can end the exchange before the group's timeout.
        let answered = RawHTTP.Progress()
        async let open = RawHTTP.exchange(port: port, Array("GET / HTTP/1.1\r\n\r\n".utf8), timeout: .hours(1), group: group, progress: answered)
        // Closed once the answer has come, whenever that is on a loaded machine.
        while !answered.receivedAny { try await Task.sleep(for: .milliseconds(10)) }
        await endpoint.close()
        let text = try await open
        #expect(text.hasPrefix("HTTP/1.1 200"))
        // A second close is harmless. (Connecting to the old port again proves nothing: a
        // suite running alongside may have bound the same free port since.)
        await endpoint.close()
        try await group.shutdownGracefully()
    }
}

import TestSupport
import Clocks
import Dashboard
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import NIOCore
import NIOPosix
import Store
import Synchronization
import Testing
import Workout

/// The session pages over real HTTP on loopback, from a real SQLite store: the list, a
/// session's page with its plot (parsed as SVG) and its summary exactly as stored, 404s for
/// unknown ids, the standalone dashboard's read-only store beside a writer, and the token.
@Suite("Session pages", .serialized)
struct SessionPagesTests {
    static let bike = MachineIdentity(name: "SF-Bike-0007", address: "C0:11:22:33:44:07", model: "SF-Bike-M1", type: .bike)
    static let rower = MachineIdentity(name: "SF-Rower-<b>", address: "C0:11:22:33:44:08", type: .rower)
    static let origin = UTCTime(secondsSince1970: 1_795_248_000)

    static func id(_ number: Int) -> String { "00000000-0000-4000-8000-" + String(format: "%012d", number) }

    static func summary(_ number: Int, machine: MachineIdentity, offset: Int) -> SessionSummary {
        let start = origin.adding(seconds: offset)
        let detail = SessionDetail(
            machine: machine, elapsed: 1200, paused: 0, averagePower: 150, energyMethod: .counter,
            distanceMethod: .counter, sampleCount: 1200, endReason: .stopped)
        return SessionSummary(
            sessionID: id(number), startedAt: start, endedAt: start.adding(seconds: 1200), duration: 1200,
            totalEnergy: 140 + number, totalDistance: 9000 + number, detail: detail)
    }

    /// 1200 s of a ride whose power goes 100...299 and heart rate 120...159.
    static func ride(_ number: Int, machine: MachineIdentity) -> SeriesChunk {
        SeriesChunk(sessionID: id(number), machine: machine, points: (0..<1200).map { (second: Int) -> SeriesPoint in
            let power = Double(100 + second % 200)
            let heart = Double(120 + second % 40)
            return SeriesPoint(t: Double(second), power: power, cadence: 85, pace: 120, strokeRate: 24, heartRate: heart)
        })
    }

    final class Server: Sendable {
        let task: Task<Void, any Error>
        let port: Int
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

        init(_ library: SessionLibrary, token: AccessToken? = nil) async throws {
            let dashboard = try DashboardServer(
                configuration: .init(listen: ListenAddress(host: "127.0.0.1", port: 0), token: token), sources: [], sessions: library,
                clock: .system, log: { _ in })
            let bound = Mutex(0)
            let application = dashboard.application { port in bound.withLock { $0 = port } }
            task = Task { try await application.run() }
            try await waitUntil("the dashboard listening") { bound.withLock { $0 } != 0 }
            port = bound.withLock { $0 }
        }

        /// One GET over a fresh connection: the status, the content type and the body.
        func get(_ path: String) async throws -> (status: Int, type: String, body: String) {
            let client = try await RawClient.connect(port: port, group: group)
            try await client.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            try await waitUntil("the answer to \(path)") { client.isClosed }
            let text = client.text
            guard let split = text.range(of: "\r\n\r\n") else { return (0, "", text) }
            let head = text[..<split.lowerBound].split(separator: "\r\n")
            let status = head.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
            let type = head.first { $0.lowercased().hasPrefix("content-type:") }.map { String($0.dropFirst(13)).trimmingCharacters(in: .whitespaces) } ?? ""
            return (status, type, String(text[split.upperBound...]))
        }

        func stop() async {
            task.cancel()
            _ = await task.result
            try? await group.shutdownGracefully()
        }
    }

    /// The store every test starts from: a bike ride with its series, a row without one.
    static func store(in directory: TemporaryDirectory) async throws -> GatewayStore {
        let store = try GatewayStore(directory: directory.path)
        try await store.enqueue(summary(1, machine: bike, offset: 0), machineAddress: bike.address, series: ride(1, machine: bike))
        try await store.enqueue(summary(2, machine: rower, offset: 3600))
        return store
    }

    static func attribute(_ name: String, in element: Substring) -> String? {
        guard let start = element.range(of: name + "=\"") else { return nil }
        return element[start.upperBound...].prefix { $0 != "\"" }.description
    }

    @Test
    func theListShowsTheLastSessionsNewestFirst() async throws {
        let directory = try TemporaryDirectory()
        let server = try await Server(SessionLibrary(store: try await Self.store(in: directory)))
        defer { Task { await server.stop() } }
        let page = try await server.get("/sessions")
        #expect(page.status == 200 && page.type.hasPrefix("text/html"))
        let rows = page.body.split(separator: "<tr data-session=").dropFirst()
        #expect(rows.count == 2)
        #expect(rows.first?.hasPrefix("\"\(Self.id(2))\"") == true, "newest first")
        #expect(rows.first?.contains("SF-Rower-&lt;b&gt;") == true, "names are escaped")
        #expect(rows.first?.contains("data-plot=\"false\"") == true)
        let bike = try #require(rows.last)
        #expect(bike.contains("data-plot=\"true\"") && bike.contains("SF-Bike-0007") && bike.contains(">bike<"))
        #expect(bike.contains("20:00") && bike.contains("9001 m") && bike.contains("141 kcal") && bike.contains("data-upload=\"pending\""))
        #expect(bike.contains("href=\"sessions/\(Self.id(1))\""))
        let api = try await server.get("/api/sessions")
        let items = try JSONDecoder().decode([SessionPages.Item].self, from: Data(api.body.utf8))
        #expect(items.map(\.sessionId) == [Self.id(2), Self.id(1)])
        #expect(items.map(\.plot) == [false, true])
        #expect(items.last?.machine == "SF-Bike-0007" && items.last?.type == "bike" && items.last?.upload == "pending")
        let floor = try await server.get("/")
        #expect(floor.body.contains("id=\"sessions-link\" href=\"sessions\""), "the floor page links to the sessions")
    }

    @Test
    func aSessionsPageHasItsPlotAndItsSummaryAsUploaded() async throws {
        let directory = try TemporaryDirectory()
        let store = try await Self.store(in: directory)
        let server = try await Server(SessionLibrary(store: store))
        defer { Task { await server.stop() } }
        let page = try await server.get("/sessions/\(Self.id(1))")
        #expect(page.status == 200)
        #expect(page.body.contains("<img id=\"plot\" src=\"\(Self.id(1))/plot.svg\""))
        let stored = try #require(try await store.sessionJSON(id: Self.id(1)))
        #expect(page.body.contains("<pre id=\"summary\">\(PageEscape.html(stored))</pre>"))
        let summary = try await server.get("/sessions/\(Self.id(1))/summary.json")
        #expect(summary.status == 200 && summary.type == "application/json")
        #expect(summary.body == stored, "the exact bytes the uploader sends")

        let plot = try await server.get("/sessions/\(Self.id(1))/plot.svg")
        #expect(plot.status == 200 && plot.type == "image/svg+xml")
        let svg = try SVGElements.parse(Data(plot.body.utf8))
        let panels = svg.all.filter { $0.name == "g" && $0.attributes["class"] == "panel" }
        #expect(panels.map { $0.attributes["data-series"] } == ["power", "cadence", "heart_rate"])
        #expect(panels.first?.attributes["data-min"] == "100" && panels.first?.attributes["data-max"] == "299")
        #expect(panels.last?.attributes["data-min"] == "120" && panels.last?.attributes["data-max"] == "159")
        #expect(svg.all.filter { $0.name == "path" }.count == 3, "one path per series")
        #expect(svg.all.filter { $0.name == "line" }.count == 6, "two axes per panel")
        #expect(svg.all.first?.attributes["data-seconds"] == "1199")

        let row = try await server.get("/sessions/\(Self.id(2))")
        #expect(row.status == 200 && row.body.contains("id=\"no-plot\"") && !row.body.contains("<img"))
        let noPlot = try await server.get("/sessions/\(Self.id(2))/plot.svg")
        #expect(noPlot.status == 404 && noPlot.body.contains("has no stored series"))
        for path in ["/sessions/\(Self.id(9))", "/sessions/\(Self.id(9))/plot.svg", "/sessions/%2E%2E%2Fetc", "/sessions/not-an-id!/plot.svg", "/sessions/\(Self.id(9))/summary.json"] {
            #expect(try await server.get(path).status == 404, "\(path)")
        }
    }

    /// The standalone dashboard: the store opened read-only beside a writer (the daemon). It
    /// is not there yet (503, one line), then it is; a session the writer adds after the reader
    /// opened is on the next page; the reader never writes.
    @Test
    func theStandaloneDashboardReadsTheDaemonsStoreReadOnly() async throws {
        let directory = try TemporaryDirectory()
        let state = directory.path + "/state"
        let library = SessionLibrary { try GatewayStore(readingFrom: state) }
        let server = try await Server(library)
        defer { Task { await server.stop() } }
        let missing = try await server.get("/sessions")
        #expect(missing.status == 503 && missing.body.contains("no database yet"))
        #expect(!FileManager.default.fileExists(atPath: state), "the reader creates nothing")

        let daemon = try GatewayStore(directory: state)
        try await daemon.enqueue(Self.summary(1, machine: Self.bike, offset: 0), machineAddress: Self.bike.address, series: Self.ride(1, machine: Self.bike))
        #expect(try await server.get("/sessions").body.contains(Self.id(1)))
        try await daemon.saveAll([], series: [SeriesChunk(sessionID: Self.id(3), machine: Self.bike, points: [SeriesPoint(t: 0, power: 90)])])
        try await daemon.enqueue(Self.summary(3, machine: Self.bike, offset: 7200), machineAddress: Self.bike.address)
        let later = try await server.get("/sessions")
        #expect(later.body.split(separator: "<tr data-session=").dropFirst().first?.hasPrefix("\"\(Self.id(3))\"") == true)
        #expect(try await server.get("/sessions/\(Self.id(3))/plot.svg").status == 200)

        let reader = try GatewayStore(readingFrom: state)
        await #expect(throws: StoreError.self) { try await reader.retryDead() }
    }

    @Test
    func theTokenGuardsTheSessionPagesAndTheirLinksCarryIt() async throws {
        let directory = try TemporaryDirectory()
        let token = try AccessToken(value: "correct-horse-battery-staple")
        let server = try await Server(SessionLibrary(store: try await Self.store(in: directory)), token: token)
        defer { Task { await server.stop() } }
        #expect(try await server.get("/sessions").status == 401)
        #expect(try await server.get("/sessions/\(Self.id(1))/plot.svg").status == 401)
        let list = try await server.get("/sessions?token=correct-horse-battery-staple")
        #expect(list.status == 200 && list.body.contains("href=\"sessions/\(Self.id(1))?token=correct-horse-battery-staple\""))
        let page = try await server.get("/sessions/\(Self.id(1))?token=correct-horse-battery-staple")
        #expect(page.body.contains("src=\"\(Self.id(1))/plot.svg?token=correct-horse-battery-staple\""))
        #expect(try await server.get("/sessions/\(Self.id(1))/plot.svg?token=correct-horse-battery-staple").status == 200)
    }
}

/// The page's escaping, as the tests expect it.
enum PageEscape {
    static func html(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// Every element of an SVG document, read with an XML parser.
final class SVGElements: NSObject, XMLParserDelegate {
    var all: [(name: String, attributes: [String: String])] = []

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        all.append((name, attributes))
    }

    struct NotXML: Error {}

    static func parse(_ data: Data) throws -> SVGElements {
        let elements = SVGElements()
        let parser = XMLParser(data: data)
        parser.delegate = elements
        guard parser.parse() else { throw NotXML() }
        return elements
    }
}

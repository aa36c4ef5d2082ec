import TestSupport
import Foundation
import Store
import Upload
import Workout

/// One gateway for a test: its own state directory, store and sync service, talking to a
/// reference backend; and a fresh user, so tests never share an account.
final class TestGateway: @unchecked Sendable {
    let directory: TemporaryDirectory
    let store: GatewayStore
    let service: SyncService
    let user: String

    init(backend: ReferenceBackend, timeout: Duration = .seconds(3), user: String? = nil) throws {
        directory = try TemporaryDirectory(prefix: "ftms-upload")
        store = try GatewayStore(directory: directory.file("state"))
        service = SyncService(
            store: store, client: try BackendClient(baseURL: backend.url, timeout: timeout), timeZone: TimeZone(identifier: "UTC") ?? .gmt)
        self.user = user ?? "rider-\(UUID().uuidString.prefix(8).lowercased())"
    }

    var idToken: String { "test:\(user)" }

    /// A fresh reference backend started with `arguments`, and a gateway logged in to it.
    static func loggedIn(_ arguments: [String] = [], timeout: Duration = .seconds(3)) async throws -> (ReferenceBackend, TestGateway) {
        let backend = try await ReferenceBackend(arguments)
        let gateway = try TestGateway(backend: backend, timeout: timeout)
        try await gateway.login()
        return (backend, gateway)
    }

    @discardableResult
    func login() async throws -> LoginResult {
        try await service.login(provider: "test", idToken: idToken)
    }

    /// `count` pending sessions, a day apart, oldest first by `number`.
    @discardableResult
    func enqueue(_ count: Int, from first: Int = 0) async throws -> [SessionSummary] {
        let summaries = (first..<first + count).map { TestSessions.summary($0) }
        try await store.enqueue(summaries)
        return summaries
    }
}

/// Sessions the backend accepts: UUID ids, whole-second UTC times, duration within the span.
enum TestSessions {
    static let bike = MachineIdentity(name: "SF-Bike-0001", address: "C0:11:22:33:44:01", model: "SF-Bike-M1", type: .bike)
    /// 2026-01-05T07:00:00Z.
    static let origin = UTCTime(secondsSince1970: 1_767_596_400)

    /// Session `number`, starting `number` hours after ``origin``, with figures that vary.
    static func summary(_ number: Int, id: String = UUID().uuidString.lowercased()) -> SessionSummary {
        let start = origin.adding(seconds: number * 3600)
        let duration = 600 + number % 7 * 60
        let detail = SessionDetail(
            machine: bike, elapsed: duration + 30, paused: 30, averagePower: 150, energyMethod: .counter,
            distanceMethod: .counter, sampleCount: duration, endReason: .stopped)
        return SessionSummary(
            sessionID: id, startedAt: start, endedAt: start.adding(seconds: duration + 30), duration: duration,
            totalEnergy: 80 + number % 11, totalDistance: 5_000 + number * 10, detail: detail)
    }

    /// The JSON object of a summary, for the backend's admin API.
    static func object(_ summary: SessionSummary) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(summary.jsonString.utf8)) as? [String: Any]) ?? [:]
    }
}

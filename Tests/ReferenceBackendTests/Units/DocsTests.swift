import TestSupport
import Foundation
import Hummingbird
import Testing
@testable import ReferenceBackend

@Suite("The documents name every route the server has")
struct DocsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `METHOD /path/{parameter}` for every registered route.
    static func routes() throws -> [(method: String, path: String)] {
        let backend = try Backend(configuration: BackendConfiguration(), clock: ManualClock().wall)
        let router = BackendRouter.make(backend: backend, configuration: BackendConfiguration(), log: { _ in })
        return router.routes.map { route in
            let path = route.path.description.split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            return (route.method.rawValue, path.hasPrefix("/") ? path : "/" + path)
        }
    }

    @Test("docs/backend-api.md has a `METHOD /path` for each route")
    func prose() throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("docs/backend-api.md"), encoding: .utf8)
        let routes = try Self.routes()
        #expect(routes.count == 21)
        for (method, path) in routes {
            #expect(text.contains("`\(method) \(path)"), "\(method) \(path) is not in docs/backend-api.md")
        }
    }

    @Test("docs/backend-openapi.yaml has each path with each of its methods")
    func openAPI() throws {
        let lines = try String(contentsOf: Self.repository.appendingPathComponent("docs/backend-openapi.yaml"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        for (method, path) in try Self.routes() {
            guard let start = lines.firstIndex(of: "  \(path):"[...]) else {
                Issue.record("\(path) is not in docs/backend-openapi.yaml")
                continue
            }
            let block = lines[(start + 1)...].prefix { $0.hasPrefix("    ") || $0.isEmpty }
            #expect(block.contains("    \(method.lowercased()):"[...]), "\(method) \(path) is not in docs/backend-openapi.yaml")
        }
    }
}

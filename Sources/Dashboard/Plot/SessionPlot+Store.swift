public import Store
import Workout

extension SessionPlot {
    /// Why a stored session cannot be drawn: one line for `queue --plot` and a 404 page.
    public enum Unavailable: Error, CustomStringConvertible, Equatable {
        case unknownSession(String)
        case noSeries(String)

        public var description: String {
            switch self {
            case .unknownSession(let id): "no session \(id) in the queue"
            case .noSeries(let id):
                "session \(id) has no stored series to plot (recorded before series were kept, downloaded from the backend, or pruned after upload)"
            }
        }
    }

    /// The plot of session `id` from its series in `store` (open or finished): what
    /// `queue --plot` writes and the dashboard's session pages serve.
    public static func stored(_ id: String, in store: GatewayStore) async throws -> SessionPlot {
        let session = try await store.session(id: id)
        guard let series = try await store.series(sessionID: id) else {
            throw session == nil ? Unavailable.unknownSession(id) : Unavailable.noSeries(id)
        }
        let title = [series.machineName, session?.startedAt.iso8601].compactMap { $0 }.joined(separator: " · ")
        return SessionPlot(title: title, type: series.machineType, points: series.points)
    }
}

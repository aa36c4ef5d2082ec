import Foundation
public import Store
import Workout

/// The dashboard's session pages, rendered on the server as plain HTML (no script needed to
/// read them): the last sessions of this gateway, and one page per session with its plot
/// (`plot.svg`, drawn by ``SessionPlot`` from the stored series) and its summary exactly as the
/// store keeps it for upload (the element of `batch_upload`'s `sessions` array).
///
/// Every link carries the page's own `?token=` on, so a TV bookmarked with the token can
/// follow them. Elements carry `data-*` attributes that the browser test reads.
public enum SessionPages {
    /// How many sessions the list shows.
    public static let listLength = 50

    public struct Unavailable: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// One row of `/api/sessions`.
    public struct Item: Sendable, Codable, Equatable {
        public var sessionId: String
        public var machine: String?
        public var type: String?
        public var startedAt: String
        public var duration: Int
        public var distance: Int
        public var energy: Int
        public var upload: String
        public var retries: Int
        public var lastError: String?
        public var plot: Bool

        public init(_ session: StoredSession) {
            sessionId = session.sessionID
            machine = session.machineName
            type = session.machineType
            startedAt = session.startedAt.iso8601
            duration = session.duration
            distance = session.totalDistance
            energy = session.totalEnergy
            upload = session.status.rawValue + (session.downloaded ? " (downloaded)" : "")
            retries = session.retryCount
            lastError = session.lastError
            plot = session.hasSeries
        }
    }

    /// Whether `id` can be a session id (a UUID's characters): anything else is a 404 before
    /// the store is asked.
    public static func isSessionID(_ id: Substring) -> Bool {
        !id.isEmpty && id.count <= 64 && id.allSatisfy { $0.isHexDigit || $0 == "-" }
    }

    /// `?token=…` to carry on, or nothing.
    static func query(_ token: String?) -> String {
        guard let token, !token.isEmpty else { return "" }
        // RFC 3986's unreserved characters stay as they are; everything else (`+`, `/`, `=` of
        // base64) is percent-encoded.
        return "?token=" + (token.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "-._~").union(.alphanumerics)) ?? "")
    }

    public static func list(title: String, sessions: [StoredSession], token: String?) -> String {
        let query = query(token)
        let rows = sessions.map { (session: StoredSession) -> String in
            let item = Item(session)
            return """
                <tr data-session="\(escape(item.sessionId))" data-upload="\(escape(session.status.rawValue))" data-plot="\(item.plot)">\
                <td><a href="sessions/\(escape(item.sessionId))\(query)">\(escape(item.machine ?? "?"))</a></td>\
                <td>\(escape(item.type ?? "-"))</td><td><time datetime="\(item.startedAt)">\(item.startedAt)</time></td>\
                <td class="n">\(clock(item.duration))</td><td class="n">\(item.distance) m</td><td class="n">\(item.energy) kcal</td>\
                <td class="state \(escape(session.status.rawValue))">\(escape(item.upload))</td></tr>
                """
        }.joined(separator: "\n")
        let body = sessions.isEmpty
            ? "<p class=\"empty\">No sessions yet: they appear here when a session on this gateway finishes.</p>"
            : """
                <table id="sessions"><thead><tr><th>Machine</th><th>Type</th><th>Start</th><th>Duration</th><th>Distance</th>\
                <th>Energy</th><th>Upload</th></tr></thead><tbody>
                \(rows)
                </tbody></table>
                """
        return document(
            title: "Last sessions · \(title)",
            header: "<a class=\"nav\" href=\"./\(query)\">← Floor</a><h1>Last sessions</h1>",
            body: body)
    }

    public static func detail(title: String, session: StoredSession, summary: String?, hasPlot: Bool, token: String?) -> String {
        let query = query(token)
        let id = escape(session.sessionID)
        let facts: [(String, String)] = [
            ("Machine", session.machineName ?? "?"), ("Type", session.machineType ?? "-"),
            ("Start", session.startedAt.iso8601), ("Duration", clock(session.duration)),
            ("Distance", "\(session.totalDistance) m"), ("Energy", "\(session.totalEnergy) kcal"),
            ("Upload", session.status.rawValue + (session.downloaded ? " (downloaded)" : "")
                + (session.retryCount > 0 ? ", \(session.retryCount) failed attempts" : "")),
        ] + (session.lastError.map { [("Last error", $0)] } ?? [])
        let list = facts.map { "<dt>\(escape($0.0))</dt><dd data-fact=\"\(escape($0.0.lowercased()))\">\(escape($0.1))</dd>" }.joined()
        let plot = hasPlot
            ? "<img id=\"plot\" src=\"\(id)/plot.svg\(query)\" alt=\"power, cadence or pace, stroke rate, and heart rate over the session\">"
            : "<p class=\"empty\" id=\"no-plot\">No plot: this session has no stored series (recorded before series were kept, downloaded from the backend, or pruned after upload).</p>"
        let json = summary.map {
            "<h2>Summary as uploaded</h2><pre id=\"summary\">\(escape($0))</pre><p><a href=\"\(id)/summary.json\(query)\">summary.json</a></p>"
        } ?? ""
        return document(
            title: "\(session.machineName ?? "Session") · \(title)",
            header: "<a class=\"nav\" href=\"../sessions\(query)\">← Last sessions</a><h1>\(escape(session.machineName ?? "Session"))</h1>",
            body: "<dl data-session=\"\(id)\">\(list)</dl>\n\(plot)\n\(json)")
    }

    /// A page saying why there is nothing to show (404, or the store not open); `root` is the
    /// floor page relative to it (`./` from `/sessions`, `../` from `/sessions/ID`).
    public static func message(title: String, text: String, token: String?, root: String) -> String {
        document(
            title: title, header: "<a class=\"nav\" href=\"\(root)\(query(token))\">← Floor</a><h1>\(escape(title))</h1>",
            body: "<p class=\"empty\">\(escape(text))</p>")
    }

    static func document(title: String, header: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="dark"><title>\(escape(title))</title>
        <style>
        body { margin: 0; background: #0d1117; color: #e6edf3; font: 16px/1.4 system-ui, sans-serif; }
        header { display: flex; align-items: baseline; gap: 1rem; padding: 0.8rem 1.2rem; border-bottom: 1px solid #30363d; }
        header h1 { margin: 0; font-size: 1.6rem; }
        a { color: #58a6ff; }
        main { padding: 1rem 1.2rem; max-width: 1000px; }
        table { border-collapse: collapse; width: 100%; font-size: 1.1rem; }
        th, td { text-align: left; padding: 0.4rem 0.6rem; border-bottom: 1px solid #30363d; }
        td.n { text-align: right; font-variant-numeric: tabular-nums; }
        .state.pending { color: #d29922; } .state.uploaded { color: #3fb950; } .state.dead { color: #f85149; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 1rem; font-size: 1.1rem; }
        dt { color: #8b949e; } dd { margin: 0; }
        img { width: 100%; height: auto; border-radius: 0.4rem; margin: 1rem 0; }
        pre { white-space: pre-wrap; word-break: break-all; background: #161b22; padding: 0.8rem; border-radius: 0.4rem; }
        .empty { color: #8b949e; }
        @media (max-width: 600px) { td:nth-child(2), th:nth-child(2), td:nth-child(6), th:nth-child(6) { display: none; } }
        </style></head>
        <body><header>\(header)</header><main>
        \(body)
        </main>
        <script>for (const t of document.querySelectorAll("time")) t.textContent = new Date(t.dateTime).toLocaleString();</script>
        </body></html>

        """
    }

    static func escape(_ text: String) -> String { PageAssets.escape(text) }

    static func clock(_ seconds: Int) -> String { SessionPlot.clock(Double(seconds)) }
}

/// The gym-floor dashboard (contract §11): a web page with one tile per machine, grouped by
/// gateway, kept live over Server-Sent Events.
///
/// The data flow is three small pieces, each replaceable:
///
/// - a ``DashboardSource`` turns some transport into ``GatewayEvent``s: contract §7 envelopes
///   tagged with the gateway they came from, plus a snapshot to resync from. The metrics socket
///   (``MetricsSocketSource``, one gateway) is one; an MQTT subscriber (every gateway of a gym)
///   is another, with the same events.
/// - ``FloorState`` folds those events into tiles. It is a value type with no I/O and no clock,
///   so the page, `watch`'s table and the tests all read the same fold.
/// - ``DashboardHub`` owns the state and the open browsers, each behind a bounded
///   ``ClientMailbox``: a browser that stops reading loses sample updates and is then resynced
///   from a fresh snapshot, and never slows the source or the other browsers.
///
/// The page (``PageAssets``) is plain HTML, CSS and JavaScript embedded in the binary: no build
/// step, no CDN, nothing fetched from anywhere but this server. ``SessionPlot`` draws a
/// session's samples as SVG, for the session pages and `replay --plot` / `queue --plot`.
///
/// Hand-written here: the SSE framing (a few lines of text per event) and the SVG writer;
/// Hummingbird serves HTTP and SwiftNIO reads the metrics socket.
public enum Dashboard {
    /// Sparkline history kept per machine: one point a second for this many seconds.
    public static let sparklineSeconds = 180
}

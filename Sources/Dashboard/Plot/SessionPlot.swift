public import FTMS
import Foundation
public import Workout

/// A session drawn as SVG: one panel per series (power and cadence for a bike, pace and stroke
/// rate for a rower, heart rate for both) over one shared time axis, each panel with its own
/// axes and its own range, so no series is flattened by another's units.
///
/// Hand-written: an SVG of a few paths and labels is a few dozen lines of text, and a charting
/// library would bring a JavaScript runtime or a rasteriser. Elements carry `class` and
/// `data-*` attributes (`series`, `min`, `max`, `seconds`) so a test or a script can read the
/// plot back.
public struct SessionPlot: Sendable, Equatable {
    public struct Series: Sendable, Equatable {
        public var key: String
        public var label: String
        public var unit: String
        public var color: String
        /// Seconds from the session's start, and the value.
        public var points: [SparkPoint]
        /// Pace reads better upside down: faster (fewer seconds) higher.
        public var inverted: Bool

        public init(key: String, label: String, unit: String, color: String, points: [SparkPoint], inverted: Bool = false) {
            self.key = key
            self.label = label
            self.unit = unit
            self.color = color
            self.points = points
            self.inverted = inverted
        }
    }

    public var title: String
    public var series: [Series]

    public init(title: String, series: [Series]) {
        self.title = title
        self.series = series.filter { !$0.points.isEmpty }
    }

    /// The series of a machine type from its points (a capture's samples, or a session's
    /// stored series): what `replay --plot`, `queue --plot` and the dashboard's session pages
    /// all draw.
    public init(title: String, type: MachineType, points: [SeriesPoint]) {
        func series(_ key: String, _ value: KeyPath<SeriesPoint, Double?>, _ label: String, _ unit: String, _ color: String, inverted: Bool = false) -> Series {
            Series(
                key: key, label: label, unit: unit, color: color,
                points: points.compactMap { point in point[keyPath: value].map { SparkPoint(t: point.t, v: $0) } },
                inverted: inverted)
        }
        let heart = series("heart_rate", \.heartRate, "Heart rate", "bpm", "#d7301f")
        switch type {
        case .rower:
            self.init(title: title, series: [
                series("pace", \.pace, "Pace", "s/500m", "#6a3d9a", inverted: true),
                series("stroke_rate", \.strokeRate, "Stroke rate", "spm", "#1f78b4"), heart,
            ])
        case .bike:
            self.init(title: title, series: [
                series("power", \.power, "Power", "W", "#1f78b4"),
                series("cadence", \.cadence, "Cadence", "rpm", "#33a02c"), heart,
            ])
        }
    }

    public static let width = 960.0
    public static let panelHeight = 150.0
    static let left = 70.0
    static let right = 20.0
    static let top = 40.0
    static let gap = 30.0

    /// The whole SVG document.
    public var svg: String {
        let end = max(series.flatMap(\.points).map(\.t).max() ?? 0, 1)
        let height = Self.top + Double(max(series.count, 1)) * (Self.panelHeight + Self.gap) + 10
        let plotWidth = Self.width - Self.left - Self.right
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Self.format(Self.width))" height="\(Self.format(height))" \
            viewBox="0 0 \(Self.format(Self.width)) \(Self.format(height))" font-family="sans-serif" font-size="12" data-seconds="\(Self.format(end))">
            <rect width="100%" height="100%" fill="#ffffff"/>
            <text x="\(Self.format(Self.left))" y="24" font-size="16" font-weight="bold">\(Self.escape(title))</text>

            """
        if series.isEmpty { out += "<text x=\"\(Self.format(Self.left))\" y=\"70\">no samples</text>\n" }
        for (index, one) in series.enumerated() {
            let top = Self.top + Double(index) * (Self.panelHeight + Self.gap)
            let bottom = top + Self.panelHeight
            let values = one.points.map(\.v)
            let low = values.min() ?? 0
            let high = values.max() ?? 0
            let span = high > low ? high - low : 1
            func y(_ v: Double) -> Double {
                let fraction = (v - low) / span
                return one.inverted ? top + fraction * Self.panelHeight : bottom - fraction * Self.panelHeight
            }
            func x(_ t: Double) -> Double { Self.left + t / end * plotWidth }
            let path = one.points.enumerated().map { offset, point in
                "\(offset == 0 ? "M" : "L")\(Self.format(x(point.t))) \(Self.format(y(point.v)))"
            }.joined(separator: " ")
            out += """
                <g class="panel" data-series="\(one.key)" data-min="\(Self.format(low))" data-max="\(Self.format(high))" \
                data-top="\(Self.format(top))" data-bottom="\(Self.format(bottom))">
                <line class="axis y" x1="\(Self.format(Self.left))" y1="\(Self.format(top))" x2="\(Self.format(Self.left))" y2="\(Self.format(bottom))" stroke="#444"/>
                <line class="axis x" x1="\(Self.format(Self.left))" y1="\(Self.format(bottom))" x2="\(Self.format(Self.width - Self.right))" y2="\(Self.format(bottom))" stroke="#444"/>
                <text x="8" y="\(Self.format(top + 14))" fill="\(one.color)" font-weight="bold">\(Self.escape(one.label))</text>
                <text x="8" y="\(Self.format(top + 30))" fill="#666">\(Self.escape(one.unit))</text>
                <text class="label max" x="\(Self.format(Self.left - 6))" y="\(Self.format(y(high) + 4))" text-anchor="end">\(Self.format(high))</text>
                <text class="label min" x="\(Self.format(Self.left - 6))" y="\(Self.format(y(low) + 4))" text-anchor="end">\(Self.format(low))</text>
                <text class="label time" x="\(Self.format(Self.left))" y="\(Self.format(bottom + 16))">0:00</text>
                <text class="label time" x="\(Self.format(Self.width - Self.right))" y="\(Self.format(bottom + 16))" text-anchor="end">\(Self.clock(end))</text>
                <path class="series" data-series="\(one.key)" d="\(path)" fill="none" stroke="\(one.color)" stroke-width="1.5" stroke-linejoin="round"/>
                </g>

                """
        }
        return out + "</svg>\n"
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }

    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 3600
            ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
            : String(format: "%d:%02d", whole / 60, whole % 60)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}

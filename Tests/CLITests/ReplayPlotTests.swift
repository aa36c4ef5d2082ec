import TestSupport
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// `replay FILE --plot out.svg`: the plot read back with an XML parser, against captures whose
/// rides are known (captures/*.expected.json).
@Suite("replay --plot")
struct ReplayPlotTests {
    /// Every element of an SVG document: its name and attributes, in document order.
    final class Elements: NSObject, XMLParserDelegate {
        var all: [(name: String, attributes: [String: String])] = []

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            all.append((name, attributes))
        }

        static func parse(_ data: Data) throws -> Elements {
            let elements = Elements()
            let parser = XMLParser(data: data)
            parser.delegate = elements
            guard parser.parse() else { throw ParseFailed(description: "\(parser.parserError.map { "\($0)" } ?? "not XML")") }
            return elements
        }
    }

    struct ParseFailed: Error, CustomStringConvertible { let description: String }

    struct Panel {
        var series: String
        var min: Double
        var max: Double
        var top: Double
        var bottom: Double
        var points: [(x: Double, y: Double)]
    }

    static func plot(_ capture: String) async throws -> (svg: Elements, panels: [Panel]) {
        let scratch = try TemporaryDirectory(prefix: "plot")
        let output = scratch.file("out.svg")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let result = try await ProcessRunner.run(["replay", root.appendingPathComponent("captures/\(capture)").path, "--plot", output], timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        return try read(output)
    }

    /// The SVG file at `path`, read back: its elements and its panels with their paths' points.
    static func read(_ path: String) throws -> (svg: Elements, panels: [Panel]) {
        let svg = try Elements.parse(try Data(contentsOf: URL(fileURLWithPath: path)))
        var panels: [Panel] = []
        for element in svg.all {
            if element.name == "g", element.attributes["class"] == "panel" {
                let a = element.attributes
                panels.append(Panel(
                    series: a["data-series"] ?? "", min: Double(a["data-min"] ?? "") ?? .nan, max: Double(a["data-max"] ?? "") ?? .nan,
                    top: Double(a["data-top"] ?? "") ?? .nan, bottom: Double(a["data-bottom"] ?? "") ?? .nan, points: []))
            } else if element.name == "path", element.attributes["class"] == "series", !panels.isEmpty {
                #expect(panels[panels.count - 1].points.isEmpty, "one path per series")
                #expect(element.attributes["data-series"] == panels.last?.series)
                let numbers = (element.attributes["d"] ?? "").split(whereSeparator: { "ML ".contains($0) }).compactMap { Double($0) }
                panels[panels.count - 1].points = stride(from: 0, to: numbers.count - 1, by: 2).map { (numbers[$0], numbers[$0 + 1]) }
            }
        }
        return (svg, panels)
    }

    @Test func aBikeRideIsPowerAndCadenceOverTimeWithinTheRidesRange() async throws {
        let (svg, panels) = try await Self.plot("bike-steady.ftmscap")
        #expect(svg.all.first?.name == "svg")
        #expect(svg.all.filter { $0.name == "line" && $0.attributes["class"]?.hasPrefix("axis") == true }.count == 2 * panels.count, "an x and a y axis per panel")
        #expect(panels.map(\.series).prefix(2) == ["power", "cadence"])
        let power = try #require(panels.first)
        // The scenario: 600 s at 165 W, idle before and after.
        #expect(abs(power.max - 165) <= 5 && power.min >= 0, "power \(power.min)...\(power.max)")
        let seconds = Double(svg.all.first?.attributes["data-seconds"] ?? "") ?? 0
        #expect((600...800).contains(seconds), "the plot spans the capture: \(seconds) s")
        for panel in panels {
            #expect(panel.points.count >= 100, "\(panel.series): \(panel.points.count) points")
            #expect(panel.points.allSatisfy { (panel.top - 0.05...panel.bottom + 0.05).contains($0.y) && (70...940.05).contains($0.x) }, "\(panel.series) stays in its panel")
            #expect(zip(panel.points, panel.points.dropFirst()).allSatisfy { $0.x <= $1.x }, "time runs left to right")
            #expect(panel.min <= panel.max)
        }
        // The highest power is drawn at the panel's top, the lowest at its bottom.
        #expect(abs((power.points.map(\.y).min() ?? 0) - power.top) < 0.06)
        #expect(abs((power.points.map(\.y).max() ?? 0) - power.bottom) < 0.06)
    }

    @Test func aRowerIsPaceAndStrokeRate() async throws {
        let (_, panels) = try await Self.plot("rower-viking-split.ftmscap")
        #expect(panels.map(\.series).prefix(2) == ["pace", "stroke_rate"])
        let strokes = try #require(panels.first { $0.series == "stroke_rate" })
        // The scenario: 24 then 26 strokes a minute.
        #expect(strokes.max <= 27 && strokes.max >= 24, "stroke rate \(strokes.min)...\(strokes.max)")
    }

    @Test func plotTakesOneCapture() async throws {
        let result = try await ProcessRunner.run(["replay", "a.ftmscap", "b.ftmscap", "--plot", "/tmp/x.svg"], timeout: .seconds(10))
        #expect(result.status != 0 && result.stderr.contains("--plot"))
    }
}

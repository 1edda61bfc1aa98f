import Foundation
import GestureAnalysis
import GestureCore
import GestureTestSupport
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Parses SVG text as XML, collecting the elements' names and the polylines' point counts.
private final class SVGReader: NSObject, XMLParserDelegate {
    var elements: [String] = []
    var polylinePoints: [[(x: Double, y: Double)]] = []
    var root: [String: String] = [:]

    static func read(_ text: String) throws -> SVGReader {
        let reader = SVGReader()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = reader
        try #require(parser.parse(), "not well-formed XML: \(String(describing: parser.parserError))")
        return reader
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if elements.isEmpty { root = attributes }
        elements.append(name)
        if name == "polyline", let points = attributes["points"] {
            polylinePoints.append(
                points.split(separator: " ").map { pair in
                    let xy = pair.split(separator: ",").map { Double($0)! }
                    return (xy[0], xy[1])
                })
        }
    }
}

/// Renders SVG text with rsvg-convert and returns the PNG's width and height.
private func renderedSize(_ svg: String) throws -> (width: Int, height: Int) {
    let folder = try TemporaryFolder()
    let input = folder.path.appending("plot.svg").string, output = folder.path.appending("plot.png").string
    try svg.write(toFile: input, atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["rsvg-convert", input, "-o", output]
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "rsvg-convert failed")
    let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
    try #require(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "not a PNG")
    let integer = { (offset: Int) in png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
    return (integer(16), integer(20))
}

@Suite struct SVGTests {
    @Test func sessionPanelsAreValidXMLAndRenderAtTheirSize() throws {
        let sessions = try syntheticDataset()
        let features = try ["gravX", "gravY", "gravZ"].map { try Feature(named: $0) }
        let charts = try GesturePlot(features: features, maximumPanels: 3).charts(for: Dataset(sessions: sessions))
        let svg = ChartPage(charts: charts, width: 800, panelHeight: 250).svg.text
        let reader = try SVGReader.read(svg)
        #expect(reader.elements.first == "svg")
        #expect(reader.elements.filter { $0 == "polyline" }.count == 9)
        #expect(reader.root["width"] == "800" && reader.root["height"] == "750")
        #expect(svg.contains(">gravX</text>") && svg.contains(">time (s)</text>") && svg.contains(">twist</text>"))
        let size = try renderedSize(svg)
        #expect(size.width == 800 && size.height == 750)
    }

    @Test func aHundredThousandSamplesKeepTheirPeaksAndStaySmall() throws {
        // A slow wave with one spike: min/max reduction must keep the spike and the extremes.
        let count = 100_000
        let points = (0..<count).map { k in (x: Double(k), y: k == 61_234 ? 5.0 : sin(Double(k) / 3000)) }
        let chart = LineChart(
            title: "long", xLabel: "sample", yLabel: "g", series: [.init(name: "accelX", points: points)])
        let svg = ChartPage(charts: [chart], width: 900).svg.text
        #expect(svg.utf8.count < 40_000)
        let line = try #require(try SVGReader.read(svg).polylinePoints.first)
        #expect(line.count <= 2 * 900)
        let top = try #require(line.min { $0.y < $1.y })
        #expect(abs(top.x - (64 + 61_234.0 / 99_999 * (900 - 64 - 120))) < 1)
        let yRange = (line.map(\.y).min()!, line.map(\.y).max()!)
        // The plot spans y 24...220; the values -1...5 are padded by 0.3 on each side.
        let trough: Double = 220 - 196 * 0.3 / 6.6
        let peak: Double = 24 + 196 * 0.3 / 6.6
        #expect(abs(yRange.1 - trough) < 0.2)
        #expect(abs(yRange.0 - peak) < 0.2)
        let size = try renderedSize(svg)
        #expect(size.width == 900 && size.height == 260)
    }

    /// rad/s and g never share an axis: a session's features of each unit get a panel of their own.
    @Test func eachUnitHasAPanelOfItsOwn() throws {
        let sessions = try syntheticDataset()
        let charts = try GesturePlot(
            features: ["rotX", "accelX", "rotY"].map { try Feature(named: $0) }, maximumPanels: 2
        ).charts(for: Dataset(sessions: sessions))
        #expect(charts.map(\.yLabel) == ["rad/s", "g", "rad/s", "g"])
        #expect(charts.map { $0.series.map(\.name) } == [["rotX", "rotY"], ["accelX"], ["rotX", "rotY"], ["accelX"]])
        #expect(charts.map(\.title.isEmpty) == [false, true, false, true])
    }

    @Test func aSliceOfSamplesIsOnePanelWithBandsWhereTheLabelChanges() throws {
        let sessions = try syntheticDataset()
        let chart = try #require(
            try GesturePlot(features: [Feature(named: "rotZ")], slice: 250..<400).charts(
                for: Dataset(sessions: sessions)
            ).first)
        #expect(chart.xLabel == "time (s)")
        // Session 1 has 300 rows: its gesture ends at row 250, session 2's starts at row 300 + 50;
        // sessions follow one another one interval apart, so the slice's seconds run evenly.
        let interval = sessions[0].rows[1].timestamp - sessions[0].rows[0].timestamp
        #expect(chart.bands.map(\.label) == ["wave"])
        let band = try #require(chart.bands.first)
        #expect(abs(band.from - 100 * interval) < 1e-9 && abs(band.to - 149 * interval) < 1e-9)
        let error = #expect(throws: AnalysisError.self) {
            try GesturePlot(features: [Feature(named: "rotZ")], slice: 0..<10_000).charts(
                for: Dataset(sessions: sessions))
        }
        #expect(error?.description.contains("outside the selection's 7200 samples") == true)
    }

    @Test func aConfusionMatrixShowsSharesAndCountsWithinItsCanvas() throws {
        let long = "a-very-long-gesture-name"
        let heatmap = Heatmap(
            title: "confusion <test>", rowLabels: ["shake", long], columnLabels: ["shake", long],
            counts: [[18, 2], [1, 2]])
        let svg = heatmap.svg
        let text = svg.text
        #expect(text.contains(">confusion &lt;test&gt;<"))
        for shown in ["0.9", "(18)", "0.1", "(2)", "0.33", "0.67", "target", "predicted", "share of the row"] {
            #expect(text.contains(">\(shown)<"), "\(shown)")
        }
        // Every text that is not turned lies within the canvas, at 0.62 em a character.
        let texts = text.matches(
            of:
                /<text x="([\d.]+)" y="[\d.]+" font-family="sans-serif" font-size="([\d.]+)" text-anchor="(\w+)" fill="[^"]*">([^<]*)<\/text>/
        )
        #expect(texts.count > 10)
        for match in texts {
            let x = Double(match.1)!, width = Double(match.4.count) * Double(match.2)! * 0.62
            let left = match.3 == "start" ? x : match.3 == "middle" ? x - width / 2 : x - width
            #expect(
                left >= 0 && left + width <= svg.width, "\(match.4) from \(left) to \(left + width) of \(svg.width)")
        }
        let reader = try SVGReader.read(text)
        #expect(reader.elements.filter { $0 == "rect" }.count == 1 + 4 + 50)
        let size = try renderedSize(text)
        #expect(size.width == Int(svg.width.rounded()) && size.height == Int(svg.height.rounded()))
    }

    @Test func sharesHaveTwoSignificantDigitsAndTheScaleRunsFromLightToDark() {
        #expect(
            Heatmap(title: "", rowLabels: ["a"], columnLabels: ["a", "b", "c"], counts: [[953, 42, 5]]).shares[0].map {
                String(format: "%.2g", $0)
            } == ["0.95", "0.042", "0.005"])
        let cells = Heatmap(title: "", rowLabels: ["a"], columnLabels: ["a", "b"], counts: [[1, 0]]).svg.text
        #expect(cells.contains("fill=\"#08306b\"") && cells.contains("fill=\"#f7fbff\""))
    }
}

import Foundation
import GestureAnalysis
import GestureCore
import GestureTestSupport
import Testing

/// Renders SVG text with rsvg-convert and returns the PNG's width and height.
private func renderedSize(_ svg: String) throws -> (width: Int, height: Int) {
    let folder = try TemporaryFolder()
    let input = folder.path.appending("plot.svg").string, output = folder.path.appending("plot.png").string
    try svg.write(toFile: input, atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["rsvg-convert", input, "-o", output]
    try process.runDyingWithTests()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "rsvg-convert failed")
    let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
    try #require(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "not a PNG")
    let integer = { (offset: Int) in png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
    return (integer(16), integer(20))
}

private func features(_ names: String...) throws -> [Feature] { try names.map { try Feature(named: $0) } }

/// Texts must stay on the canvas, apart from each other and out of the plot areas, where the lines are.
private func expectTextsClear(_ svg: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let reading = try SVGReading(svg)
    #expect(reading.misplacedTexts == [], sourceLocation: sourceLocation)
    let inPlots = reading.texts.filter { text in reading.frames.contains { $0.overlaps(SVGReading.box(of: text)) } }
    #expect(inPlots.map(\.content) == [], "texts over a plot area", sourceLocation: sourceLocation)
}

@Suite struct SVGTests {
    @Test func sessionPanelsAreValidXMLAndRenderAtTheirSize() throws {
        let sessions = try syntheticDataset()
        let plot = try GesturePlot(features: features("gravX", "gravY", "gravZ"), maximumSessions: 3)
            .panels(for: Dataset(sessions: sessions))
        let svg = ChartPage(charts: plot.charts, width: 800).svg.text
        let reading = try SVGReading(svg)
        #expect(reading.root.name == "svg")
        #expect(reading.named("path").count == 9)
        #expect(reading.size.width == 800)
        #expect(svg.contains(">gravX</text>") && svg.contains(">time (s)</text>") && svg.contains(">twist</text>"))
        let size = try renderedSize(svg)
        #expect(Double(size.width) == reading.size.width && Double(size.height) == reading.size.height)
        try expectTextsClear(svg)
    }

    @Test func aThumbnailIsTheBandsAndLinesAloneInTheAxesColoursFillingItsSize() throws {
        let session = try #require(try syntheticDataset().first { !$0.gesture.isRest })
        let chart = try #require(
            try GesturePlot(features: Feature.rawAcceleration, gestureColors: [session.gesture.rawValue: "#CC79A7"])
                .panels(for: Dataset(sessions: [session])).charts.first)
        let svg = chart.thumbnail(width: 240, height: 64).text
        let reading = try SVGReading(svg)
        #expect(reading.size.width == 240 && reading.size.height == 64)
        #expect(reading.texts.isEmpty)
        #expect(reading.named("path").map { $0.attributes["stroke"] } == Palette.axes)
        let bands = reading.named("rect").filter { $0.attributes["fill-opacity"] != nil }
        #expect(!bands.isEmpty && bands.allSatisfy { $0.attributes["fill"] == "#CC79A7" })
        #expect(reading.frames.map { [$0.minX, $0.minY, $0.maxX, $0.maxY] } == [[0.5, 0.5, 239.5, 63.5]])
        let size = try renderedSize(svg)
        #expect(size.width == 240 && size.height == 64)
    }

    @Test func aHundredThousandSamplesKeepTheirPeaksAndStaySmall() throws {
        // A slow wave with one spike: min/max reduction must keep the spike and the extremes.
        let count = 100_000
        let points = (0..<count).map { k in (x: Double(k), y: k == 61_234 ? 5.0 : sin(Double(k) / 3000)) }
        let chart = LineChart(
            title: "long", xLabel: "sample", yLabel: "g", series: [.init(name: "accelX", points: points)])
        let svg = ChartPage(charts: [chart], width: 900).svg.text
        #expect(svg.utf8.count < 40_000)
        let reading = try SVGReading(svg)
        let line = try #require(reading.pathRuns.first?.first)
        let frame = try #require(reading.frames.first)
        #expect(line.count <= 2 * 900)
        let top = try #require(line.min { $0.y < $1.y })
        #expect(abs(top.x - (frame.minX + 61_234.0 / 99_999 * (frame.maxX - frame.minX))) < 1)
        // The values -1...5 are padded by 0.3 on each side.
        let height = frame.maxY - frame.minY
        #expect(abs(line.map(\.y).max()! - (frame.maxY - height * 0.3 / 6.6)) < 0.2)
        #expect(abs(top.y - (frame.minY + height * 0.3 / 6.6)) < 0.2)
        let size = try renderedSize(svg)
        #expect(Double(size.width) == reading.size.width && Double(size.height) == reading.size.height)
    }

    @Test func valuesNearTheLargestDoubleAreDrawnAtTheEdgeOfThePlot() throws {
        let largest = Double.greatestFiniteMagnitude
        let points = [(x: 0.0, y: -largest), (x: 1, y: 0.5), (x: 2, y: largest), (x: 3, y: 0.4)]
        let chart = LineChart(
            title: "hostile", xLabel: "sample", yLabel: "g", series: [.init(name: "gravX", points: points)])
        let svg = ChartPage(charts: [chart], width: 900).svg.text
        #expect(!svg.contains("nan") && !svg.contains("inf"))
        let reading = try SVGReading(svg)
        let line = try #require(reading.pathRuns.first?.first)
        let frame = try #require(reading.frames.first)
        #expect(line.count == 4)
        #expect(line[2].y < line[1].y && line[1].y < line[0].y)
        #expect(line.allSatisfy { frame.minY - 1 <= $0.y && $0.y <= frame.maxY + 1 })
        let size = try renderedSize(svg)
        #expect(Double(size.width) == reading.size.width)
    }

    @Test func aSliceOfSamplesIsInSecondsWithBandsWhereTheLabelChanges() throws {
        let sessions = try syntheticDataset()
        let plot = try GesturePlot(features: features("rotZ"), slice: 250..<400).panels(
            for: Dataset(sessions: sessions))
        let chart = try #require(plot.charts.first)
        #expect(plot.charts.count == 1 && plot.sessionsDrawn == 2 && plot.sessionsLeftOut == 0)
        #expect(chart.xLabel == "time (s)")
        #expect(chart.title == "5.0 s to 8.0 s of the selection's 144.0 s (samples 250 to 399 of 7200)")
        // Session 1 has 300 rows at 50 Hz, 0 to 5.98 s; session 2 follows at 6 s, its gesture from its
        // row 50 (1 s) to the slice's end at its row 99.
        #expect(chart.bands.map(\.label) == ["wave"])
        let band = try #require(chart.bands.first)
        #expect(abs(band.from - 7) < 1e-9 && abs(band.to - 7.98) < 1e-9)
        #expect(chart.series.first?.runs.count == 2, "a break where the session changes")
        let error = #expect(throws: AnalysisError.self) {
            try GesturePlot(features: features("rotZ"), slice: 0..<10_000).panels(for: Dataset(sessions: sessions))
        }
        #expect(error?.description.contains("outside the selection's 7200 samples") == true)
        #expect(error?.setting == .slice)
        try expectTextsClear(ChartPage(charts: plot.charts).svg.text)
    }

    @Test func aPanelPerUnitWithTimeInSecondsFromTheSessionsFirstSample() throws {
        let session = try syntheticSession("s", user: "ann", gesture: "twist", motion: twist)
        let plot = try GesturePlot(features: features("gravX", "rotX", "gravZ", "roll", "rotY"))
            .panels(for: Dataset(sessions: [session]))
        #expect(plot.charts.map(\.yLabel) == ["g", "rad/s", "rad"])
        #expect(plot.charts.map { $0.series.map(\.name) } == [["gravX", "gravZ"], ["rotX", "rotY"], ["roll"]])
        #expect(plot.charts.map(\.title) == ["s · ann · twist · 6.0 s", "", ""])
        #expect(plot.charts.map(\.xLabel) == ["", "", "time (s)"])
        #expect(plot.charts.map(\.labelsBands) == [true, false, false])
        let times = try #require(plot.charts.first?.series.first?.runs.first?.map(\.x))
        #expect(times.first == 0 && abs(times.last! - 5.98) < 1e-9 && times.count == 300)
        let svg = ChartPage(charts: plot.charts).svg.text
        try expectTextsClear(svg)
        #expect(try SVGReading(svg).frames.count == 3)
    }

    @Test func aGapBreaksTheLinesButJitterDoesNot() throws {
        var session = try syntheticSession("s", user: "ann", gesture: "twist", motion: twist)
        // 50 Hz with intervals up to 26 % off, then 10 samples missing: 0.22 s, 11 median intervals.
        for k in session.rows.indices { session.rows[k].timestamp += 0.003 * sin(Double(k) * 2.1) }
        session.rows.removeSubrange(100..<110)
        let plot = try GesturePlot(features: features("rotZ", "gravY")).panels(for: Dataset(sessions: [session]))
        let runs = try #require(plot.charts.first?.series.first?.runs)
        #expect(runs.map(\.count) == [100, 190])
        let svg = ChartPage(charts: plot.charts).svg.text
        #expect(try SVGReading(svg).pathRuns.map(\.count) == [2, 2])
        #expect(svg.contains("<path d=\"M") && svg.components(separatedBy: " M").count == 3)
    }

    @Test func sessionsBeyondTheMaximumAreCountedAndTheNoteIsOnThePage() throws {
        let sessions = try syntheticDataset()
        let plot = try GesturePlot(features: features("gravX"), maximumSessions: 2).panels(
            for: Dataset(sessions: sessions))
        #expect(plot.charts.count == 2 && plot.sessionsDrawn == 2 && plot.sessionsLeftOut == 22)
        let note = "2 of 24 sessions drawn; --panels to draw more"
        let svg = ChartPage(charts: plot.charts, width: 500, note: note).svg.text
        #expect(try SVGReading(svg).texts.first?.content == note)
        try expectTextsClear(svg)
    }

    @Test func aHeatmapIsSizedToItsLabelsAndEscapesThem() throws {
        let heatmap = Heatmap(
            title: "Confusion matrix of a model with rather a long name <test>", rowTitle: "target",
            columnTitle: "predicted", rowLabels: ["shake", "a-long-gesture-name"],
            columnLabels: ["shake", "a-long-gesture-name"], counts: [[18, 2], [1, 19_999]],
            scaleTitle: "share of the target's windows")
        let svg = heatmap.svg().text
        let reading = try SVGReading(svg)
        #expect(reading.named("rect").count == 1 + 4 + 1)
        #expect(svg.contains("rather a long name &lt;test&gt;"))
        #expect(
            ["target", "predicted", "share of the target's windows", "19999"].allSatisfy { word in
                reading.texts.contains { $0.content == word }
            })
        #expect(reading.misplacedTexts == [])
        let size = try renderedSize(svg)
        #expect(Double(size.width) == reading.size.width && Double(size.height) == reading.size.height)
    }

    @Test func sharesAreRoundedToTwoSignificantDigitsAndShadedContinuously() throws {
        let heatmap = Heatmap(
            title: "c", rowTitle: "target", columnTitle: "predicted", rowLabels: ["a", "b", "c"],
            columnLabels: ["a", "b", "c"], counts: [[61, 3, 0], [1, 179, 0], [0, 0, 0]], scaleTitle: "share")
        let reading = try SVGReading(heatmap.svg().text)
        let cells = reading.texts.map(\.content).filter { $0.contains(".") }
        #expect(Set(cells).isSuperset(of: ["0.95", "0.047", "0.0056", "0.99"]))
        for cell in cells {
            let digits = cell.drop { $0 == "0" || $0 == "." }
            #expect(digits.count <= 2, "\(cell) has more than 2 significant digits")
        }
        // Cells a, b (share 0.047), c (0) and the first of row b (0.0056): all different colours.
        let fills = reading.named("rect").dropFirst().prefix(4).map { $0.attributes["fill"]! }
        #expect(Set(fills).count == 4)
        #expect(ColorScale.blues(0.047) != ColorScale.blues(0) && ColorScale.blues(0.047).hex != "#ffffff")
        #expect(ColorScale.blues(1).textColor == "#fff" && ColorScale.blues(0.1).textColor == "#222")
    }

    @Test func aMarkerIsADashedLineLabelledAboveThePlot() throws {
        let chart = LineChart(
            title: "Loss", xLabel: "epoch", yLabel: "cross-entropy",
            series: [.init(name: "training", points: [(1, 2), (2, 1), (3, 1.5)])],
            markers: [.init(x: 2, label: "kept epoch 2")], xTickStep: 1, xRange: 0.7...3.3)
        let svg = ChartPage(charts: [chart]).svg.text
        let reading = try SVGReading(svg)
        let frame = try #require(reading.frames.first)
        let dashed = try #require(reading.named("line").first { $0.attributes["stroke-dasharray"] != nil })
        #expect(abs(dashed.number("x1")! - (frame.minX + (2 - 0.7) / 2.6 * (frame.maxX - frame.minX))) < 0.1)
        let label = try #require(reading.texts.first { $0.content == "kept epoch 2" })
        #expect(SVGReading.box(of: label).maxY <= frame.minY)
        let below = reading.texts.filter { SVGReading.box(of: $0).minY > frame.maxY }.map(\.content)
        #expect(below == ["1", "2", "3", "epoch"], "whole epochs only")
        try expectTextsClear(svg)
    }
}

import BrowserDriver
import Foundation
import GestureStore
import GestureTestSupport
import Testing

/// The studio's views draw what is there: plots scaled to the data, the axes in the colours of the
/// SVGs `gesture plot` writes, a colour per gesture, and every class's probability in the detect view.
@Suite struct TruthfulViewsTests {
    typealias Studio = StudioViewsTests.Studio

    /// A shake of ±4.5 g along x, 60 readings a second: +4.5 g and −4.5 g in turn.
    static let shake = PhoneRecordingTests.player(
        motion: """
            accelerationIncludingGravity: { x: (k % 2 === 0 ? 4.5 : -4.5) * 9.80665, y: 0, z: 9.80665 },
            rotationRate: { alpha: 0, beta: 0, gamma: 0 },
            """)

    /// The rows of a canvas (CSS pixels from its top) where a colour is drawn: the first and the last.
    static func rowsDrawn(in canvas: String, colour: String, on page: BrowserPage) async throws -> [Double] {
        try #require(
            try await page.evaluate(
                """
                (() => {
                  const canvas = document.getElementById("\(canvas)");
                  const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
                  const want = [1, 3, 5].map((at) => parseInt("\(colour)".slice(at, at + 2), 16));
                  const rows = [];
                  for (let y = 0; y < canvas.height; y++) {
                    for (let x = 0; x < canvas.width; x++) {
                      const i = (y * canvas.width + x) * 4;
                      if (data[i + 3] > 200 && want.every((value, c) => Math.abs(data[i + c] - value) < 24)) { rows.push(y); break; }
                    }
                  }
                  const scale = canvas.width / canvas.clientWidth;
                  return [rows[0] / scale, rows[rows.length - 1] / scale, canvas.clientHeight];
                })()
                """) as? [Double])
    }

    @Test func theLiveViewScalesToAShakeOfFourAndAHalfG() async throws {
        let studio = try await Studio(prepare: { _ in })
        let phone = try await studio.livePhone(playing: Self.shake)
        try await studio.page.waitUntil(
            "a second of the shake drawn", "studio.live.readings > 60 && studio.live.frames > 5")
        #expect(try await studio.page.evaluate("studio.extents['live-acceleration']") as? Double == 5)
        #expect(try await studio.page.evaluate("studio.extents['live-rotation']") as? Double == 5)
        // x reaches ±4.5 of ±5 g: 90 % of the half height less its margin, not the frame's edge.
        let colour = try #require(try await studio.page.evaluate("axisColours[0]") as? String)
        let (top, bottom, height) = try await {
            let rows = try await Self.rowsDrawn(in: "live-acceleration", colour: colour, on: studio.page)
            return (rows[0], rows[1], rows[2])
        }()
        let reach = 0.9 * (height / 2 - 6)
        #expect(
            abs(top - (height / 2 - reach)) < 3 && abs(bottom - (height / 2 + reach)) < 3, "x drawn \(top)–\(bottom)")
        try await studio.screenshot("live-shake")
        try await phone.close()
    }

    /// What `gesture plot` draws of one gesture's sessions of the folder: the colours of its
    /// lines in order, and those of its bands.
    static func svgColours(
        of gesture: String, in folder: TemporaryFolder
    ) throws -> (lines: [String], bands: Set<String>) {
        let output = folder.path.appending("\(gesture).svg").string
        try runGesture(
            ["plot", "--gesture", gesture, "--features", "rawAccelX,rawAccelY,rawAccelZ", "--output", output],
            in: folder.path
        ).succeeded()
        let reading = try SVGReading(String(contentsOfFile: output, encoding: .utf8))
        let bands = reading.named("rect").filter { $0.attributes["fill-opacity"] != nil }.compactMap {
            $0.attributes["fill"]
        }
        return (reading.named("path").compactMap { $0.attributes["stroke"] }, Set(bands))
    }

    /// A session's plot in the studio: each axis in the colour `gesture plot` gives it, each
    /// gesture's band in its own colour, the same as `gesture plot`'s, and the panels scaled to
    /// the rows, none of whose points is drawn outside its panel.
    @Test func aSessionsPlotHasTheSVGsColoursAndHoldsEveryRow() async throws {
        let studio = try await Studio()
        var bandColours: [String: String] = [:]
        for gesture in ["shake", "chop"] {
            let id = try #require(try studio.sessions().first { $0.gesture.rawValue == gesture }?.id.rawValue)
            try await studio.show("session/\(id)")
            try await studio.page.waitUntil("\(id) drawn", "studio.session !== null && studio.session.id === '\(id)'")
            let drawn = try #require(
                try await studio.page.evaluate(
                    """
                    (() => {
                      const plot = document.getElementById("session-plot");
                      const lines = [...plot.querySelectorAll("polyline")];
                      const frames = [...plot.querySelectorAll("rect[fill=none]")].map((r) => [Number(r.getAttribute("y")), Number(r.getAttribute("y")) + Number(r.getAttribute("height"))]);
                      const outside = lines.filter((line, index) => {
                        const [top, bottom] = frames[Math.floor(index / 3)];
                        return line.getAttribute("points").split(" ").some((point) => { const y = Number(point.split(",")[1]); return y < top || y > bottom; });
                      }).length;
                      const bands = [...new Set([...plot.querySelectorAll("rect.band")].map((band) => band.getAttribute("fill")))];
                      const rows = studio.session.rows;
                      const largest = [1, 4].map((column) => Math.max(...rows.flatMap((row) => row.slice(column, column + 3)).filter(Number.isFinite).map(Math.abs)));
                      return { lines: lines.map((line) => line.getAttribute("stroke")), outside, bands, largest, extents: studio.session.extents };
                    })()
                    """) as? [String: Any])
            let lines = try #require(drawn["lines"] as? [String])
            let svg = try Self.svgColours(of: gesture, in: studio.folder)
            #expect(
                lines.count == 6 && Array(lines.prefix(3)) == Array(svg.lines.prefix(3)), "\(lines) vs \(svg.lines)")
            #expect(Set(lines) == Set(svg.lines.prefix(3)))
            #expect(drawn["outside"] as? Int == 0)
            let largest = try #require(drawn["largest"] as? [Double]),
                extents = try #require(drawn["extents"] as? [Double])
            #expect(
                extents[0] >= largest[0] && extents[1] >= largest[1], "extents \(extents) for rows up to \(largest)")
            let bands = try #require(drawn["bands"] as? [String])
            #expect(bands.count == 1 && svg.bands == Set(bands), "\(gesture): \(bands) vs the SVG's \(svg.bands)")
            bandColours[gesture] = bands.first
            try await studio.screenshot("session-\(gesture)")
        }
        #expect(bandColours["shake"] != nil && bandColours["shake"] != bandColours["chop"], "\(bandColours)")
    }
}

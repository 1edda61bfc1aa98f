import BrowserDriver
import Foundation
import GestureTestSupport
import Testing

/// The phone's page on the Generic Sensor API, fed by Chromium's virtual sensors
/// (`Emulation.setSensorOverrideReadings`): the server gets g and rad/s on the right axes.
@Suite struct GenericSensorTests {
    /// The readings in the server's log, each the phone's time and six values.
    static func logged(_ log: String) -> [[Double]] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map {
            $0.split(separator: " ").map { Double($0)! }
        }
    }

    @Test func readingsOfTheVirtualSensorsArriveInGAndRadiansPerSecond() async throws {
        let folder = try TemporaryFolder()
        let log = folder.path.appending("readings.log").string
        let studio = try RunningGesture(["studio", "--port", "0", "--phone-log", log], in: folder.path)
        let address = try await studio.address().replacingOccurrences(of: "/?token=", with: "/phone?token=")
        let chromium = try await Chromium(dyingWithTestsIn: folder.path)
        let page = try await chromium.open(address)
        try await page.waitUntil("the page connected", "studio.connected")
        for type in ["accelerometer", "gyroscope"] {
            try await page.send("Emulation.setSensorOverrideEnabled", ["enabled": true, "type": type])
        }
        func play(acceleration: [Double], rotation: [Double]) async throws {
            for (type, values) in [("gyroscope", rotation), ("accelerometer", acceleration)] {
                try await page.send(
                    "Emulation.setSensorOverrideReadings",
                    ["type": type, "reading": ["xyz": ["x": values[0], "y": values[1], "z": values[2]]]])
            }
        }
        func playFirst() async throws {
            try await play(
                acceleration: [1, 2, 9.5], rotation: [Self.degrees(28.6), Self.degrees(-14.3), Self.degrees(85.9)])
        }
        try await playFirst()
        _ = try await page.evaluate("document.getElementById('start').click(); true")
        // An accelerometer reading before the gyroscope's first is skipped. A phone's sensors read on;
        // Chromium's virtual ones read only when set, so the first reading is set until one pairs.
        let source = try await waitFor("a reading through the page's motion API") {
            try await playFirst()
            return try await page.evaluate("studio.source") as? String
        }
        #expect(source == "generic-sensor")
        let first = [
            1 / 9.80665, 2 / 9.80665, 9.5 / 9.80665, Self.degrees(28.6), Self.degrees(-14.3), Self.degrees(85.9),
        ]
        _ = try await waitFor("the first reading in the server's log") { Self.logged(log).isEmpty ? nil : true }

        try await play(
            acceleration: [-3, 0.5, 8], rotation: [Self.degrees(-57.3), Self.degrees(114.6), Self.degrees(7.2)])
        let second = [
            -3 / 9.80665, 0.5 / 9.80665, 8 / 9.80665, Self.degrees(-57.3), Self.degrees(114.6), Self.degrees(7.2),
        ]
        let readings = try await waitFor("the second reading in the server's log") {
            let readings = Self.logged(log).map { Array($0.dropFirst()) }
            return readings.last.map { Self.close($0, second) } == true ? readings : nil
        }
        // The gyroscope is set first: a reading between the two may pair its new values with the old acceleration.
        let between = Array(first.prefix(3) + second.suffix(3))
        let phases = readings.map { reading in [first, between, second].firstIndex { Self.close(reading, $0) } }
        #expect(phases.first == 0)
        #expect(!phases.contains(nil) && phases.map { $0 ?? -1 } == phases.map { $0 ?? -1 }.sorted(), "\(readings)")
        #expect(studio.errors.contains("phone streaming through the generic-sensor API"), "\(studio.errors)")
        studio.interrupt()
        #expect(try await studio.exitCode() == 0)
    }

    /// Chromium rounds the readings it gives pages to 0.1 m/s² and 0.1 °/s (against fingerprinting):
    /// the values played are on that grid.
    static func degrees(_ degrees: Double) -> Double { degrees * Double.pi / 180 }

    static func close(_ a: [Double], _ b: [Double]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) < 1e-9 }
    }
}

import Foundation
import GestureCore
import GestureSensors
import GestureTestSupport
import Testing

@Suite struct ReplaySensorTests {
    private func writeRecording(_ rows: [(session: String, time: Double, x: Double)]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString).csv").path
        let lines = rows.map { row in
            RecordingCSV.line(
                for: RecordingRow(
                    session: SessionID(rawValue: row.session), activity: .rest, timestamp: row.time,
                    motion: DeviceMotion(values: Array(repeating: 0, count: 12)),
                    rawAcceleration: [row.x, 0, 1], rawRotationRate: [0, row.x, 0]))
        }
        try ([RecordingCSV.header] + lines).joined(separator: "\n").appending("\n").write(
            toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func playsEveryReadingOnceInOrderAtItsRecordedPace() throws {
        let file = try writeRecording([("a", 0, 1), ("a", 0.02, 2), ("a", 0.08, 3), ("b", 0, 4), ("b", 0.02, 5)])
        defer { try? FileManager.default.removeItem(atPath: file) }
        let clock = ManualClock(start: 100)
        let sensor = try ReplaySensor(file: file, clock: clock)
        #expect(try sensor.start(rate: 500) == 50)
        var samples: [RawSample] = []
        for _ in 0..<5 { samples.append(try #require(try sensor.read(now: clock.now()))) }
        #expect(samples.map(\.acceleration.x) == [1, 2, 3, 4, 5])
        #expect(samples.map(\.rotationRate.y) == [1, 2, 3, 4, 5])
        // Session b starts one period after session a's last reading, and the gap in a is kept.
        let times = samples.map { ($0.time - 100) * 1000 }.map { $0.rounded() }
        #expect(times == [0, 20, 80, 100, 120])
        #expect(clock.now() == samples.last!.time)
        #expect(throws: SensorError.self) { try sensor.read(now: clock.now()) }
    }

    @Test(arguments: [
        (Double.infinity, "timestamp 'inf' is not a finite number of seconds"),
        (.nan, "timestamp 'nan' is not a finite number of seconds"),
        (1e300, "row 3 (session a): timestamp 1e+300 is more than 60 s after the one before it"),
        (0.01, "row 3 (session a): timestamp 0.01 is not after the one before it"),
    ])
    func aTimestampNoReplayCanPlayIsAClearError(time: Double, message: String) throws {
        let file = try writeRecording([("a", 0, 1), ("a", 0.02, 2), ("a", time, 3)])
        defer { try? FileManager.default.removeItem(atPath: file) }
        let error = #expect(throws: SensorError.self) { try ReplaySensor(file: file, clock: ManualClock()) }
        #expect(error?.description.contains(message) == true, "\(error?.description ?? "")")
    }

    /// The file is read a block at a time as it plays: one of several blocks plays every reading,
    /// in order, and its timeline has them all.
    @Test func aRecordingOfSeveralBlocksPlaysInFull() throws {
        let count = 60_000
        let file = try writeRecording((0..<count).map { ("a", Double($0) / 100, Double($0)) })
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(try #require(FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) > 4 << 20)
        let clock = ManualClock()
        let sensor = try ReplaySensor(file: file, clock: clock)
        #expect(try sensor.start(rate: 50) == 100)
        var readings: [Double] = []
        while !sensor.isFinished { readings.append(try #require(try sensor.read(now: clock.now())).acceleration.x) }
        #expect(readings == (0..<count).map(Double.init))
        #expect(try sensor.timeline.map { ($0.time * 1000).rounded() } == (0..<count).map { Double($0 * 10) })
    }

    @Test func theRecordedRateIsOneThatCanBeAskedFor() throws {
        let file = try writeRecording((0..<50).map { ("a", 0.1 + Double($0) * 0.01, 0) })
        defer { try? FileManager.default.removeItem(atPath: file) }
        let sensor = try ReplaySensor(file: file, clock: ManualClock())
        #expect(sensor.info.maximumRate == 100)
        #expect(throws: Never.self) { try sensor.validate(rate: 100) }
    }

    @Test func aFileThatIsNotARecordingIsAClearError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-\(UUID().uuidString).csv").path
        try "name,age\nbob,3\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: SensorError.self) { try ReplaySensor(file: path, clock: ManualClock()) }
        #expect(
            error?.description.hasPrefix("replay:\(path): not a recording: \(path):1: header lacks sessionId") == true)
        #expect(throws: SensorError.self) { try ReplaySensor(file: "/nonexistent.csv", clock: ManualClock()) }
    }
}

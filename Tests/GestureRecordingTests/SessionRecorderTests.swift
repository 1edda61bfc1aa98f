import Foundation
import GestureArchive
import GestureCore
import GestureRecording
import GestureSensors
import GestureSimulation
import GestureSpeech
import GestureStore
import GestureTestSupport
import Testing

@Suite struct SessionRecorderTests {
    @Test func everySampleIsLabeledByItsTakeOnTheFakeClock() async throws {
        let folder = try TemporaryFolder()
        let plan = try plan(takes: 2, take: 2, rest: 1)
        let outcome = try await recordFast(plan, in: folder.recordings, rate: 100)
        #expect(outcome.interruption == nil)
        let rows = try readRows(outcome.file)
        // Each session: 1 s get ready + 3 s countdown + 2 s take + 1 s rest, at 100 Hz.
        #expect(rows.count == 2 * 700)
        for (take, session) in [1, 2].map({ take in (take, rows.filter { $0.session.take == take }) }) {
            #expect(session.count == 700, "take \(take)")
            // Rest until go at 4 s, then the gesture as the hand makes it: one run, then rest again.
            let labels = session.map(\.activity)
            #expect(labels[0..<400].allSatisfy { $0 == .rest })
            #expect([LabelSpan](runsOf: session).map(\.label) == [.shake])
            #expect(labels.last == .rest)
            #expect(session.first?.timestamp == 0)
            #expect(abs(session[400].timestamp - 4) < 1e-9)
            #expect(session.map(\.timestamp) == session.map(\.timestamp).sorted())
        }
    }

    /// The gesture's labels start and end within 0.1 s of when the simulated hand started and
    /// stopped moving, not at the prompt's go and stop, which the catalog keeps.
    @Test(arguments: [25.0, 100.0])
    func labelsFollowTheHandsMotionAndTheCatalogKeepsThePrompt(rate: Double) async throws {
        let folder = try TemporaryFolder()
        let plan = try plan("ann", "chop", takes: 3, take: 3, rest: 3)
        let sensor = SimulatedSensor(seed: 4, holder: plan.user)
        let recorder = try SessionRecorder(
            plan: plan, sensor: sensor, clock: ManualClock(), rate: rate, folder: folder.recordings)
        let speech = Speech(voice: .printed, print: { _ in }, warn: { _ in })
        let outcome = await recorder.run(speech: speech)
        await speech.finish()
        let rows = Dictionary(grouping: try readRows(outcome.file), by: \.session)
        let records = try Catalog(path: folder.recordings.catalogPath.string).sessions()
        for (record, performed) in zip(records, sensor.performedTakes) {
            let start = performed.performance.sessionStart
            let spans = [LabelSpan](runsOf: rows[record.id] ?? [])
            #expect(spans.count == 1)
            #expect(abs(spans[0].from - (performed.motion.lowerBound - start)) < 0.1)
            #expect(abs(spans[0].to - (performed.motion.upperBound - start)) < 0.1)
            #expect(record.labels == spans)
            #expect(record.alignment == .aligned)
            #expect(record.promptFrom == 4)
            #expect(record.promptTo == 7)
        }
    }

    @Test func takesAreCataloguedWithTheirTiming() async throws {
        let folder = try TemporaryFolder()
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let outcome = try await recordFast(try plan(takes: 2), in: folder.recordings, rate: 50, date: date)
        let records = try Catalog(path: folder.recordings.catalogPath.string).sessions()
        #expect(records == outcome.sessions)
        #expect(records.map(\.id.rawValue) == ["2027-01-15T08:00:00.000Z-1", "2027-01-15T08:00:00.000Z-2"])
        for record in records {
            #expect(record.status == .kept)
            #expect(record.reason == nil)
            #expect(record.sampleCount == 350)
            #expect(record.file == "alice-recordings.csv")
            #expect(record.device == "sim")
            #expect(abs(record.achievedRate - 50) < 1e-6)
            #expect(record.jitterMs < 1e-6)
        }
        #expect(records[1].start == "2027-01-15T08:00:09.000Z")
    }

    @Test func theSameSeedRecordsTheSameMotion() async throws {
        let a = try TemporaryFolder(), b = try TemporaryFolder(), c = try TemporaryFolder()
        let first = try readRows(try await recordFast(try plan(), in: a.recordings, seed: 7).file)
        let second = try readRows(try await recordFast(try plan(), in: b.recordings, seed: 7).file)
        let other = try readRows(try await recordFast(try plan(), in: c.recordings, seed: 8).file)
        #expect(first == second)
        #expect(first.map(\.rawAcceleration) != other.map(\.rawAcceleration))
        withExtendedLifetime((a, b, c)) {}
    }

    @Test func gravityPlusUserAccelerationIsTheRawReading() async throws {
        let folder = try TemporaryFolder()
        for row in try readRows(try await recordFast(try plan(), in: folder.recordings).file) {
            let sum = row.motion.gravity + row.motion.userAcceleration
            #expect(abs(sum.x - row.rawAcceleration.x) < 1e-12 && abs(sum.z - row.rawAcceleration.z) < 1e-12)
            #expect(row.motion.rotationRate == row.rawRotationRate)
        }
    }

    @Test func theGestureShowsInTheLabeledRows() async throws {
        let folder = try TemporaryFolder()
        let rows = try readRows(try await recordFast(try plan(takes: 1, take: 3), in: folder.recordings).file)
        func spread(_ label: ActivityLabel) -> Double {
            let x = rows.filter { $0.activity == label }.map(\.motion.userAcceleration.x)
            let mean = x.reduce(0, +) / Double(x.count)
            return (x.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(x.count)).squareRoot()
        }
        #expect(spread(.shake) > 1)
        #expect(spread(.rest) < 0.9)
    }

    @Test func droppedSamplesLeaveGapsLowerTheAchievedRateAndAreCountedAsLost() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(
            try plan(takes: 2), in: folder.recordings,
            faults: try SimulatedFaults("dropped@2"))
        #expect(outcome.sessions[0].sampleCount == 700)
        #expect(outcome.sessions[1].sampleCount < 700)
        #expect(outcome.lostReadings == 700 - outcome.sessions[1].sampleCount)
        #expect(outcome.sessions[1].achievedRate < 99.9)
        #expect(outcome.sessions[1].jitterMs > 1)
    }

    @Test func anInterruptedTakeIsSavedAsIncomplete() async throws {
        let folder = try TemporaryFolder()
        let plan = try plan(takes: 3)
        let clock = ManualClock(start: 0)
        let sensor = ReadObserver(SimulatedSensor(holder: plan.user))
        let recorder = try SessionRecorder(
            plan: plan, sensor: sensor, clock: clock, rate: 100, folder: folder.recordings)
        sensor.onRead = { time in
            if time > 10.505 { recorder.interrupt(reason: "interrupted by test") }
        }
        let speech = Speech(voice: .printed, print: { _ in }, warn: { _ in })
        let outcome = await recorder.run(speech: speech)
        await speech.finish()
        #expect(outcome.interruption == "interrupted by test")
        let records = try Catalog(path: folder.recordings.catalogPath.string).sessions()
        #expect(records.map(\.status) == [.kept, .incomplete])
        #expect(records.map(\.reason) == [nil, "interrupted by test"])
        // The observer hides the hand's gestures, so nothing moved inside either prompt (the second
        // take stopped before go), which the catalog flags.
        #expect(records.map(\.alignment) == [.noMotion, .noMotion])
        // Take 2 starts at 9 s; the reading at 10.51 s asks to stop and is the last one saved.
        #expect(records.map(\.sampleCount) == [700, 152])
        #expect(try readRows(outcome.file).count == 852)
        #expect(try Archive(folder: folder.recordings).check().isConsistent)
    }

    @Test func aSecondRecorderForTheSameUserIsRefused() async throws {
        let folder = try TemporaryFolder()
        let plan = try plan()
        let first = try SessionRecorder(
            plan: plan, sensor: SimulatedSensor(holder: plan.user), clock: ManualClock(),
            rate: 100, folder: folder.recordings)
        let error = #expect(throws: StoreError.self) {
            _ = try SessionRecorder(
                plan: plan, sensor: SimulatedSensor(holder: plan.user), clock: ManualClock(),
                rate: 100, folder: folder.recordings)
        }
        #expect(error?.description.contains("another gesture process") == true)
        withExtendedLifetime(first) {}
    }

    @Test func aRateTheDeviceCannotDoIsRefusedBeforeAnythingIsWritten() throws {
        let folder = try TemporaryFolder()
        let plan = try plan()
        for rate in [0, -5, .nan, 1001] {
            #expect(throws: StoreError.self) {
                _ = try SessionRecorder(
                    plan: plan, sensor: SimulatedSensor(holder: plan.user), clock: ManualClock(),
                    rate: rate, folder: folder.recordings)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: folder.recordings.root.string))
    }
}

/// A sensor that tells a test each time it is read.
final class ReadObserver: MotionSensor, @unchecked Sendable {
    let base: SimulatedSensor
    var onRead: (Double) -> Void = { _ in }

    init(_ base: SimulatedSensor) { self.base = base }

    var info: SensorInfo { base.info }
    var pacing: SensorPacing { base.pacing }
    func start(rate: Double) throws(SensorError) -> Double { try base.start(rate: rate) }
    func stop() { base.stop() }

    func read(now: Double) throws(SensorError) -> RawSample? {
        onRead(now)
        return try base.read(now: now)
    }
}

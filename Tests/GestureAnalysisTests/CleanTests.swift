import Foundation
import GestureAnalysis
import GestureCore
import GestureSimulation
import GestureTestSupport
import Testing

@Suite struct CleanFindingTests {
    private func findings(_ sessions: [RecordedSession], of id: String) -> [Finding.Kind] {
        Cleaner().badSessions(in: Dataset(sessions: sessions)).first { $0.session.rawValue == id }?.findings.map(\.kind)
            ?? []
    }

    @Test func wellRecordedSessionsHaveNoFindings() throws {
        #expect(Cleaner().badSessions(in: Dataset(sessions: try syntheticDataset())).isEmpty)
    }

    @Test func upsideDownSessionIsWrongOrientation() throws {
        var sessions = try syntheticDataset()
        sessions.append(
            try syntheticSession("bob-flipped", user: "bob", gesture: "twist", motion: twist, gravity: [0, 0.6, -0.8]))
        #expect(findings(sessions, of: "bob-flipped") == [.orientation])
        let bad = try #require(Cleaner().badSessions(in: Dataset(sessions: sessions)).first)
        #expect(bad.reasons.contains("from bob's other twist sessions"))
    }

    @Test func sessionThatLooksLikeAnotherGestureSaysWhich() throws {
        var sessions = try syntheticDataset()
        sessions.append(try syntheticSession("cy-mixup", user: "cy", gesture: "twist", motion: wave))
        #expect(findings(sessions, of: "cy-mixup") == [.wrongGesture])
        let bad = try #require(Cleaner().badSessions(in: Dataset(sessions: sessions)).first)
        #expect(bad.reasons.contains("looks like wave, not twist"))
    }

    @Test func droppedSamplesAreGaps() throws {
        var sessions = try syntheticDataset()
        var gappy = try syntheticSession("ann-gappy", user: "ann", gesture: "twist", motion: twist)
        gappy.rows.removeSubrange(100..<115)
        sessions.append(gappy)
        #expect(findings(sessions, of: "ann-gappy") == [.timing])
    }

    @Test func rateDriftIsFound() throws {
        var drifting = try syntheticSession("ann-drift", user: "ann", gesture: "twist", motion: twist)
        drifting.requestedRate = 50
        for k in drifting.rows.indices { drifting.rows[k].timestamp *= 1.05 }
        let reason = try #require(Cleaner().badSessions(in: Dataset(sessions: [drifting])).first).reasons
        #expect(reason.contains("rate drift"))
        #expect(reason.contains("-4.8 %"))
    }

    @Test func nanAndInfinityAreFoundWithTheirFeatures() throws {
        var sessions = try syntheticDataset()
        var broken = try syntheticSession("bob-nan", user: "bob", gesture: "wave", motion: wave)
        broken.rows[50].motion.gravity.x = .nan
        broken.rows[60].rawRotationRate.z = .infinity
        sessions.append(broken)
        #expect(findings(sessions, of: "bob-nan") == [.nonFinite])
        let reason = try #require(
            Cleaner().badSessions(in: Dataset(sessions: sessions)).first { $0.session.rawValue == "bob-nan" }
        ).reasons
        #expect(reason.contains("2 of"))
        #expect(reason.contains("gravX, rawGyroZ"))
    }

    @Test func clippingAtTheSimulatedSensorsRangeIsFound() throws {
        var clipped = try syntheticSession("ann-clip", user: "ann", gesture: "wave", motion: wave, device: "sim")
        for k in 100..<110 { clipped.rows[k].rawAcceleration.x = SimulatedSensor.accelerationRange * 32767 / 32768 }
        let unclipped = try syntheticSession("ann-fine", user: "ann", gesture: "wave", motion: wave, device: "sim")
        let rules = CleaningRules(ranges: ["sim": SimulatedSensor.range])
        let bad = Cleaner(rules: rules).badSessions(in: Dataset(sessions: [clipped, unclipped]))
        #expect(
            Cleaner().badSessions(in: Dataset(sessions: [clipped])).isEmpty, "a device of unknown range is not checked")
        #expect(bad.map(\.session.rawValue) == ["ann-clip"])
        #expect(bad.first?.findings.map(\.kind) == [.clipping])
    }

    @Test func deadAxisIsFlatLine() throws {
        var sessions = try syntheticDataset()
        var dead = try syntheticSession("cy-dead", user: "cy", gesture: "wave", motion: wave)
        for k in dead.rows.indices { dead.rows[k].rawAcceleration.y = 0 }
        sessions.append(dead)
        let bad = try #require(
            Cleaner().badSessions(in: Dataset(sessions: sessions)).first { $0.session.rawValue == "cy-dead" })
        #expect(bad.findings.map(\.kind) == [.flatLine])
        #expect(bad.reasons.contains("rawAccelY holds 0"))
    }

    @Test func sessionShorterThanAWindowIsTooShort() throws {
        let short = try syntheticSession("ann-short", user: "ann", gesture: "twist", motion: twist, seconds: 0.5)
        var rules = CleaningRules()
        rules.window = 1
        let bad = Cleaner(rules: rules).badSessions(in: Dataset(sessions: [short]))
        #expect(bad.first?.findings.map(\.kind) == [.tooShort])
        rules.window = 0.4
        #expect(Cleaner(rules: rules).badSessions(in: Dataset(sessions: [short])).isEmpty)
    }
}

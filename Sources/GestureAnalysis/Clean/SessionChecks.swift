import Foundation
import GestureCore

/// The checks a session passes or fails on its own: values, timing, range, length.
struct SessionChecks {
    let rules: CleaningRules

    func findings(_ session: RecordedSession) -> [Finding] {
        [
            nonFinite(session), timing(session), clipping(session), flatLine(session), tooShort(session),
            noMotion(session),
        ].compactMap { $0 }
    }

    func nonFinite(_ session: RecordedSession) -> Finding? {
        var rows = 0
        var features: Set<String> = []
        for row in session.rows {
            let bad = Feature.all.filter { !$0.value(of: row).isFinite }
            if !bad.isEmpty { rows += 1 }
            features.formUnion(bad.map(\.name))
        }
        guard rows > 0 else { return nil }
        let names = Feature.all.map(\.name).filter(features.contains)
        return Finding(
            .nonFinite,
            "NaN or infinite values in \(rows) of \(session.rows.count) rows (\(names.joined(separator: ", ")))")
    }

    func timing(_ session: RecordedSession) -> Finding? {
        let timing = SessionTiming(session)
        if let longest = timing.gaps.max(by: { $0.seconds < $1.seconds }) {
            let missing = timing.gaps.reduce(0) { $0 + $1.seconds } * timing.nominalRate
            return Finding(
                .timing,
                String(
                    format: "%d gaps, about %.0f samples missing, longest %.3f s at %.2f s",
                    timing.gaps.count, missing, longest.seconds, longest.at))
        }
        guard abs(timing.drift) > rules.driftTolerance else { return nil }
        return Finding(
            .timing,
            String(
                format: "rate drift: %.2f Hz between samples, nominal %.2f Hz (%+.1f %%)",
                timing.nominalRate * (1 + timing.drift), timing.nominalRate, timing.drift * 100))
    }

    func clipping(_ session: RecordedSession) -> Finding? {
        guard let device = session.device, let range = rules.ranges[device], !session.rows.isEmpty else { return nil }
        let clipped = session.rows.filter {
            range.clips(acceleration: $0.rawAcceleration, rotationRate: $0.rawRotationRate)
        }.count
        guard Double(clipped) >= rules.clippingFraction * Double(session.rows.count) else { return nil }
        return Finding(
            .clipping,
            String(
                format: "%d of %d samples at the sensor's range (±%g g, ±%.0f °/s)",
                clipped, session.rows.count, range.acceleration, range.rotationRate * 180 / .pi))
    }

    func flatLine(_ session: RecordedSession) -> Finding? {
        let limit = max(5, Int(rules.flatSeconds * session.nominalRate))
        let flat = (Feature.rawAcceleration + Feature.rawRotationRate).compactMap {
            feature -> (Feature, Int, Double)? in
            let (run, value) = longestConstantRun(session.rows.map(feature.value(of:)))
            return run >= limit ? (feature, run, value) : nil
        }
        guard !flat.isEmpty else { return nil }
        return Finding(
            .flatLine,
            flat.map { feature, run, value in
                String(
                    format: "%@ holds %g for %d samples (%.2f s)", feature.name, value, run,
                    Double(run) / session.nominalRate)
            }.joined(separator: ", "))
    }

    func tooShort(_ session: RecordedSession) -> Finding? {
        let needed = Int((rules.window * session.nominalRate).rounded(.up))
        let have = session.gestureRows.count
        guard have < needed else { return nil }
        return Finding(
            .tooShort,
            String(
                format: "%d samples of %@, a %.2g s window needs %d", have, session.gesture.rawValue, rules.window,
                needed))
    }

    func noMotion(_ session: RecordedSession) -> Finding? {
        guard session.lacksMotion else { return nil }
        return Finding(
            .noMotion,
            session.rows.contains { $0.activity == session.gesture }
                ? "nothing moved inside the prompt; the labels are the prompt's"
                : "no row is labeled \(session.gesture): the take ended before the gesture")
    }

    private func longestConstantRun(_ values: [Double]) -> (count: Int, value: Double) {
        var best = (count: 0, value: Double.nan)
        var start = 0
        for index in values.indices where index == values.count - 1 || values[index + 1] != values[start] {
            if index - start + 1 > best.count { best = (index - start + 1, values[start]) }
            start = index + 1
        }
        return best
    }
}

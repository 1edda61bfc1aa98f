import GestureCore

extension RecordedSession {
    /// The session at a lower rate, for experiments (record at 80 Hz, train at 40 or 20): the first
    /// sample of every 1/rate interval, unfiltered, so each kept row is a row as recorded.
    public func downsampled(to rate: Double) -> RecordedSession {
        guard let first = rows.first, rate > 0 else { return self }
        var kept: [RecordingRow] = []
        kept.reserveCapacity(Int(duration * rate) + 1)
        // Half a recorded sample of slack, so that timing jitter does not shift a row into the
        // next interval: 80 → 40 Hz keeps every second row.
        let slack = 0.5 * rate / max(nominalRate, rate)
        var lastInterval = -1
        for row in rows {
            let interval = Int(((row.timestamp - first.timestamp) * rate + slack).rounded(.down))
            if interval > lastInterval {
                kept.append(row)
                lastInterval = interval
            }
        }
        var session = self
        session.rows = kept
        session.requestedRate = rate
        return session
    }
}

extension Dataset {
    /// Every session downsampled; a rate above a session's own leaves it as it is.
    public func downsampled(to rate: Double) throws(AnalysisError) -> Dataset {
        guard rate.isFinite, rate >= 0.1 else {
            throw AnalysisError("\(rate) is not a rate of at least 0.1 Hz", setting: .rate)
        }
        if let faster = sessions.first(where: { $0.nominalRate < rate * 0.99 }) {
            throw AnalysisError(
                "\(rate) Hz is above session \(faster.id)'s own \(Int(faster.nominalRate.rounded())) Hz; downsampling cannot add samples",
                setting: .rate)
        }
        return Dataset(sessions: sessions.map { $0.downsampled(to: rate) })
    }
}

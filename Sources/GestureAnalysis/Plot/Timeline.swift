import GestureCore

/// Rows on a time axis in seconds from the first, sessions laid end to end (the next one a median
/// interval after the last), split into runs wherever the session changes or samples are missing:
/// an interval over `gapFactor` median intervals is a gap, as `clean` counts one.
struct Timeline {
    static let gapFactor = 1.5

    /// Each row's time.
    let seconds: [Double]
    /// Positions of rows drawn as one line: between gaps and session changes.
    let runs: [Range<Int>]

    init(_ rows: [RecordingRow]) {
        let typical = rows.medianInterval ?? 1
        var seconds: [Double] = [], runs: [Range<Int>] = [], start = 0
        for (k, row) in rows.enumerated() {
            guard k > 0 else {
                seconds.append(0)
                continue
            }
            let previous = rows[k - 1]
            let sameSession = row.session == previous.session
            let interval = row.timestamp - previous.timestamp
            seconds.append(seconds[k - 1] + (sameSession ? interval : typical))
            if !sameSession || interval > Self.gapFactor * typical {
                runs.append(start..<k)
                start = k
            }
        }
        if !rows.isEmpty { runs.append(start..<rows.count) }
        self.seconds = seconds
        self.runs = runs
    }

    /// The runs cut to the rows in `range`.
    func runs(in range: Range<Int>) -> [Range<Int>] {
        runs.map { $0.clamped(to: range) }.filter { !$0.isEmpty }
    }
}

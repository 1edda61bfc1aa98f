import Foundation
import GestureCore
import GestureMotion
import GestureStore

/// What `align` did to a session.
public struct AlignedSession: Sendable {
    public var record: SessionRecord
    /// The band the gesture was labeled over before.
    public var prompt: ClosedRange<Double>?
}

extension Archive {
    /// Labels a session's rows from `from` to `to` seconds since it started (both included) as
    /// `label`, `rest` included, over what they were; the session's gesture becomes its longest
    /// stretch's label other than rest.
    public func relabel(
        _ id: SessionID, from: Double, to: Double, as label: ActivityLabel
    ) throws(StoreError) -> SessionRecord {
        guard from.isFinite, to.isFinite, from <= to else {
            throw StoreError("--from \(from) must be a number of seconds no later than --to \(to)", badRequest: true)
        }
        return try changeLabels([id], action: "relabeled", asking: from...to) {
            record, before, kept throws(StoreError) in
            try Self.checkHoldsRows(record, kept, from: from, to: to)
            return before.overlaid(with: [LabelSpan(from: from, to: to, label: label)])
        }[0]
    }

    /// A stretch that holds none of the session's rows would change nothing but what the catalog
    /// says of them: refused, naming the stretch the rows cover.
    private static func checkHoldsRows(
        _ record: SessionRecord, _ kept: KeptRows, from: Double, to: Double
    ) throws(StoreError) {
        guard kept.inStretch == 0 else { return }
        let held = kept.first.map { "its rows run from \($0.fixed(2)) to \(kept.last!.fixed(2)) s" }
        throw StoreError(
            "session \(record.id) has no rows from \(from.fixed(2)) to \(to.fixed(2)) s (\(held ?? "it has no rows")); "
                + "nothing changed",
            badRequest: true)
    }

    /// Finds the bursts of motion in a session recorded without prompts (`MotionAlignment.bursts`)
    /// and labels each as `label` says, given the burst, its number and how many there are; nil
    /// leaves a burst as it is. Returns the session and its bursts.
    public func segment(
        _ id: SessionID, labeling label: (ClosedRange<Double>, Int, Int) throws(StoreError) -> ActivityLabel?
    ) throws(StoreError) -> (record: SessionRecord, bursts: [ClosedRange<Double>]) {
        var found: [ClosedRange<Double>] = []
        let record = try changeLabels([id], action: "segmented", holdingRows: true) {
            _, before, kept throws(StoreError) in
            found = MotionAlignment().bursts(in: kept.rows)
            var spans: [LabelSpan] = []
            for (index, burst) in found.enumerated() {
                guard let label = try label(burst, index + 1, found.count) else { continue }
                spans.append(LabelSpan(from: burst.lowerBound, to: burst.upperBound, label: label))
            }
            return before.overlaid(with: spans)
        }[0]
        return (record, found)
    }

    /// Makes each session's gesture labels follow its motion inside the prompt (`MotionAlignment`):
    /// the catalog's prompt, else the stretch from its first to its last row of its gesture. With
    /// `prompted`, labels the gesture over the prompt instead, as it was recorded.
    public func align(_ ids: [SessionID], prompted: Bool = false) throws(StoreError) -> [AlignedSession] {
        var prompts: [SessionID: ClosedRange<Double>] = [:]
        let records = try changeLabels(ids, action: prompted ? "prompted" : "aligned", holdingRows: true) {
            record, before, kept in
            guard let prompt = Self.prompt(of: record, kept.rows) else {
                return SessionLabels(gesture: record.gesture, labels: before.labels, alignment: .noMotion)
            }
            prompts[record.id] = prompt
            if prompted {
                let span = LabelSpan(from: prompt.lowerBound, to: prompt.upperBound, label: record.gesture)
                return SessionLabels(gesture: record.gesture, labels: [span], alignment: nil)
            }
            switch MotionAlignment().align(kept.rows, prompt: prompt) {
            case .motion(let found):
                let span = LabelSpan(from: found.lowerBound, to: found.upperBound, label: record.gesture)
                return SessionLabels(gesture: record.gesture, labels: [span], alignment: .aligned)
            case .noMotion: return SessionLabels(gesture: record.gesture, labels: before.labels, alignment: .noMotion)
            case .noRest: return SessionLabels(gesture: record.gesture, labels: before.labels, alignment: .noRest)
            }
        }
        return records.map { AlignedSession(record: $0, prompt: prompts[$0.id]) }
    }

    /// Keeps a session's rows from `from` to `to` seconds since it started (both included) in its
    /// file, and moves the rest to recordings/discarded/; undo brings them back.
    public func trim(_ id: SessionID, from: Double, to: Double) throws(StoreError) -> SessionRecord {
        guard from.isFinite, to.isFinite, from <= to else {
            throw StoreError("--from \(from) must be a number of seconds no later than --to \(to)", badRequest: true)
        }
        return try changeLabels([id], action: "trimmed", asking: from...to) { record, before, kept throws(StoreError) in
            try Self.checkHoldsRows(record, kept, from: from, to: to)
            var after = before
            after.kept = from...to
            return after
        }[0]
    }

    /// Takes back each session's last align, relabel or trim that is not undone.
    public func undo(_ ids: [SessionID]) throws(StoreError) -> [SessionRecord] {
        try changeLabels(ids, action: "undone") { record, _ throws(StoreError) in
            guard try catalog.lastLabelChange(of: record.id) != nil else {
                throw StoreError("session \(record.id) has no change of labels to undo")
            }
            return nil
        }
    }

    private static func prompt(of record: SessionRecord, _ rows: [RecordingRow]) -> ClosedRange<Double>? {
        if let from = record.promptFrom, let to = record.promptTo { return from...to }
        let gesture = rows.filter { $0.activity == record.gesture }
        guard let first = gesture.first, let last = gesture.last else { return nil }
        return first.timestamp...last.timestamp
    }

    private func changeLabels(
        _ ids: [SessionID], action: String,
        _ relabel: (SessionRecord, SessionLabels) throws(StoreError) -> SessionLabels?
    ) throws(StoreError) -> [SessionRecord] {
        try changeLabels(ids, action: action) { record, before, _ throws(StoreError) in try relabel(record, before) }
    }

    /// Holding the users' locks, commits the sessions' new labels to the catalog, then moves their
    /// rows to where their kept stretch puts them (`placeRows`) and rewrites their labels in their
    /// files (`placeLabels`). `relabel` is given each session's record, its labels (spans made from
    /// its rows if the catalog had none) and what its rows in its kept stretch are (those rows
    /// themselves only if `holdingRows`; how many fall `asking` a stretch), and returns the new
    /// labels, or nil to undo its last change. The files are read a block at a time. A crash
    /// leaves the catalog ahead of the files: `check` says where, and `check --repair` finishes
    /// the change.
    private func changeLabels(
        _ ids: [SessionID], action: String, asking stretch: ClosedRange<Double>? = nil, holdingRows: Bool = false,
        _ relabel: (SessionRecord, SessionLabels, KeptRows) throws(StoreError) -> SessionLabels?
    ) throws(StoreError) -> [SessionRecord] {
        let locks = try UserLock.all(try sessions(ids).map(\.user), in: folder, for: "relabeling", wait: waiting)
        defer { withExtendedLifetime(locks) {} }
        let records = try sessions(ids)
        let gathered = try keptRows(of: records, asking: stretch)
        var changes: [LabelChange] = []
        for record in records {
            var kept = gathered[record.id] ?? KeptRows()
            var before = record.sessionLabels
            if holdingRows || (before.labels == nil && !kept.inTimeOrder) {
                kept.rows = try rows(of: [record])[record.id, default: []].filter {
                    record.kept?.contains($0.timestamp) != false
                }
                kept.runs = [LabelSpan](runsOf: kept.rows)
            }
            before.labels = before.labels ?? kept.runs
            var change: LabelChange
            if let after = try relabel(record, before, kept) {
                guard after != before else { continue }
                change = LabelChange(record.id, from: before, to: after, action: action)
            } else if let last = try catalog.lastLabelChange(of: record.id) {
                change = LabelChange(record.id, from: before, to: last.before, action: action, undoing: last.event)
            } else {
                continue
            }
            if change.after.kept != before.kept {
                let count = try rowCount(of: record, in: change.after.kept)
                guard count > 0 else {
                    throw StoreError("trimming session \(record.id) to that stretch would keep none of its rows")
                }
                change.sampleCount = count
            }
            changes.append(change)
        }
        try catalog.setLabels(changes)
        let changed = try sessions(ids)
        do {
            try placeRows(of: changed)
            try placeLabels(of: changed)
        } catch {
            throw StoreError(
                "\(error.description), but the catalog has the sessions \(action): `gesture check --repair` finishes it"
            )
        }
        return changed
    }

    /// What each session's rows in its kept stretch are, in its own file and in discarded/, read a
    /// block at a time.
    private func keptRows(
        of records: [SessionRecord], asking stretch: ClosedRange<Double>?
    ) throws(StoreError) -> [SessionID: KeptRows] {
        var kept: [SessionID: KeptRows] = [:]
        for (file, sessions) in Dictionary(grouping: records, by: \.file) {
            let byID = Dictionary(uniqueKeysWithValues: sessions.map { ($0.id, $0) })
            let live = folder.absolute(file)
            for path in [live, folder.discardedFile(for: live)] {
                let lines = RecordingLines(path: path, longestLine: longestLineToMove)
                try lines.forEachRow(of: Set(byID.keys), skippingOverlong: true) { _, row in
                    guard let row, byID[row.session]!.kept?.contains(row.timestamp) != false else { return }
                    kept[row.session, default: KeptRows()].add(row, asking: stretch)
                }
            }
        }
        return kept
    }

    /// How many of the session's rows, in its own file and in discarded/, fall in `stretch`; all of
    /// them if nil.
    private func rowCount(of record: SessionRecord, in stretch: ClosedRange<Double>?) throws(StoreError) -> Int {
        let live = folder.absolute(record.file)
        var count = 0
        for path in [live, folder.discardedFile(for: live)] {
            count += try RecordingLines(path: path, longestLine: longestLineToMove).count(rowsOf: [record.id]) {
                stretch?.contains($0.timestamp) != false
            }
        }
        return count
    }

    /// Each session's rows, in its own file and in discarded/, in time order.
    private func rows(of records: [SessionRecord]) throws(StoreError) -> [SessionID: [RecordingRow]] {
        var rows: [SessionID: [RecordingRow]] = [:]
        for (file, sessions) in Dictionary(grouping: records, by: \.file) {
            let ids = Set(sessions.map(\.id))
            let live = folder.absolute(file)
            for path in [live, folder.discardedFile(for: live)] {
                let lines = RecordingLines(path: path, longestLine: longestLineToMove)
                for (row, _) in try lines.rows(of: ids) { rows[row.session, default: []].append(row) }
            }
        }
        return rows.mapValues { $0.sorted { $0.timestamp < $1.timestamp } }
    }

    /// Labels the sessions' rows in the files they live in as the catalog's spans say; the caller
    /// holds the users' locks. Sessions whose labels the catalog leaves to the file are left alone.
    func placeLabels(of records: [SessionRecord]) throws(StoreError) {
        let managed = records.filter { $0.labels != nil }
        for (file, sessions) in Dictionary(grouping: managed, by: home(of:)).sorted(by: { $0.key < $1.key }) {
            let labels = Dictionary(uniqueKeysWithValues: sessions.map { ($0.id, $0.labels!) })
            try RecordingLines(path: folder.absolute(file), longestLine: longestLineToMove).rewrite(relabeling: labels)
        }
    }
}

/// What a change of labels knows of a session's rows in its kept stretch, gathered a row at a time
/// in file order (its own file's, then discarded/'s).
struct KeptRows {
    var first: Double?
    var last: Double?
    /// How many fall in the stretch the change asks about.
    var inStretch = 0
    /// Their runs of labels: right when `inTimeOrder`, as the file order is then the time order.
    var runs: [LabelSpan] = []
    var inTimeOrder = true
    /// The rows themselves in time order, when the change analyses them.
    var rows: [RecordingRow] = []
    private var previous: (time: Double, label: ActivityLabel)?

    mutating func add(_ row: RecordingRow, asking stretch: ClosedRange<Double>?) {
        first = min(first ?? row.timestamp, row.timestamp)
        last = max(last ?? row.timestamp, row.timestamp)
        if stretch?.contains(row.timestamp) == true { inStretch += 1 }
        if let previous, row.timestamp < previous.time { inTimeOrder = false }
        runs.extend(with: row, after: previous?.label)
        previous = (row.timestamp, row.activity)
    }
}

extension SessionLabels {
    /// These labels with `spans` laid over them, one after the other; the gesture becomes the
    /// longest stretch's label other than rest.
    func overlaid(with spans: [LabelSpan]) -> SessionLabels {
        var labels = self
        labels.labels = spans.reduce(self.labels ?? []) { $0.overlaid(with: $1) }
        let longest = labels.labels!.filter { !$0.label.isRest }.max { $0.to - $0.from < $1.to - $1.from }
        labels.gesture = longest?.label ?? gesture
        return labels
    }
}

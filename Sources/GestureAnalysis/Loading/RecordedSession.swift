import GestureCore
import GestureStore

/// One session of a dataset: its rows in order, with who recorded it and what gesture it holds.
public struct RecordedSession: Sendable {
    public var id: SessionID
    public var user: UserID
    /// The gesture the session was recorded for: the catalog's, or the first label other than rest.
    public var gesture: ActivityLabel
    /// The recording file, relative to the recordings folder.
    public var file: String
    /// The catalog's device, e.g. `sim` or `import:<file>`; nil for sessions outside the catalog.
    public var device: String?
    /// The catalog's requested rate, if any.
    public var requestedRate: Double?
    public var discarded: Bool
    /// What aligning its labels with the motion found, as the catalog says; nil if never aligned.
    public var alignment: AlignmentStatus?
    public var rows: [RecordingRow]
    /// The recorded session this one is an augmented copy of; nil for a recording.
    public var copyOf: SessionID?

    public init(
        id: SessionID, user: UserID, gesture: ActivityLabel, file: String, device: String? = nil,
        requestedRate: Double? = nil, discarded: Bool = false, rows: [RecordingRow]
    ) {
        self.id = id
        self.user = user
        self.gesture = gesture
        self.file = file
        self.device = device
        self.requestedRate = requestedRate
        self.discarded = discarded
        self.rows = rows
    }

    /// Seconds from the first sample to the last.
    public var duration: Double {
        guard let first = rows.first, let last = rows.last else { return 0 }
        return last.timestamp - first.timestamp
    }

    /// The rate the session was meant to have: the requested one, or else the median interval's.
    public var nominalRate: Double {
        if let requestedRate, requestedRate > 0 { return requestedRate }
        return rows.medianInterval.map { 1 / $0 } ?? 0
    }

    /// Whether nothing moved inside the session's prompt: the aligner found no motion, or no row
    /// carries the gesture the session was recorded for (a take interrupted before go).
    public var lacksMotion: Bool {
        alignment == .noMotion || (!gesture.isRest && !rows.contains { $0.activity == gesture })
    }

    /// The rows that carry the session's gesture; all rows when none is labeled (rest sessions).
    public var gestureRows: ArraySlice<RecordingRow> {
        guard let first = rows.firstIndex(where: { $0.activity == gesture }),
            let last = rows.lastIndex(where: { $0.activity == gesture })
        else { return rows[...] }
        return rows[first...last]
    }
}

/// The sessions analysis works on, in the order they were loaded.
public struct Dataset: Sendable {
    public var sessions: [RecordedSession]

    public init(sessions: [RecordedSession]) { self.sessions = sessions }

    public var users: [UserID] { Set(sessions.map(\.user)).sorted() }
    public var gestures: [ActivityLabel] { Set(sessions.map(\.gesture)).sorted() }
    public var rowCount: Int { sessions.reduce(0) { $0 + $1.rows.count } }

    public func session(_ id: SessionID) -> RecordedSession? { sessions.first { $0.id == id } }
}

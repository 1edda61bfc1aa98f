import GRDB
import GestureCore

/// Whether a session's rows count.
public enum SessionStatus: String, Codable, Sendable, CaseIterable {
    case kept
    case discarded
    /// Ended early: interrupted, or its sensor failed; the reason says which.
    case incomplete
}

/// One session as the catalog records it.
public struct SessionRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "sessions"

    public var id: SessionID
    public var user: UserID
    public var gesture: ActivityLabel
    public var take: Int
    /// Wall-clock start and end, ISO 8601; no end while the session is being recorded, or when
    /// `gesture check` found its file without a row.
    public var start: String
    public var end: String?
    public var device: String
    public var requestedRate: Double
    /// The rate the device was set to: the nearest it offers to the one requested.
    public var deviceRate: Double
    public var achievedRate: Double
    /// Root mean square of the sample interval's deviation from the nominal period, in ms.
    public var jitterMs: Double
    public var sampleCount: Int
    /// The recording file, relative to the recordings folder.
    public var file: String
    public var status: SessionStatus
    public var reason: String?
    /// When the prompt said go and stop, seconds since the session started; nil for sessions
    /// recorded without prompts.
    public var promptFrom: Double?
    public var promptTo: Double?
    /// What aligning the labels with the motion found; nil if they were never aligned.
    public var alignment: AlignmentStatus?
    /// The spans the rows' labels follow (the last span holding a row gives its label, rest if
    /// none); nil: the labels are as the file has them, never changed.
    public var labels: [LabelSpan]?
    /// The stretch of the session its file keeps, when trimmed, seconds since it started; its rows
    /// outside it are in recordings/discarded/.
    public var keptFrom: Double?
    public var keptTo: Double?

    public init(
        id: SessionID, user: UserID, gesture: ActivityLabel, take: Int, start: String, end: String?, device: String,
        requestedRate: Double, deviceRate: Double, achievedRate: Double, jitterMs: Double, sampleCount: Int,
        file: String, status: SessionStatus, reason: String? = nil, promptFrom: Double? = nil,
        promptTo: Double? = nil
    ) {
        self.promptFrom = promptFrom
        self.promptTo = promptTo
        self.id = id
        self.user = user
        self.gesture = gesture
        self.take = take
        self.start = start
        self.end = end
        self.device = device
        self.requestedRate = requestedRate
        self.deviceRate = deviceRate
        self.achievedRate = achievedRate
        self.jitterMs = jitterMs
        self.sampleCount = sampleCount
        self.file = file
        self.status = status
        self.reason = reason
    }
}

// Stored as their text; a row whose user or gesture is not a valid name fails to decode.
extension SessionID: DatabaseValueConvertible {}
extension UserID: DatabaseValueConvertible {}
extension ActivityLabel: DatabaseValueConvertible {}
extension SessionStatus: DatabaseValueConvertible {}

/// What aligning a session's labels with its motion found.
public enum AlignmentStatus: String, Codable, Sendable {
    /// The gesture's labels follow the motion found inside the prompt.
    case aligned
    /// Nothing moved inside the prompt: the labels are the prompt's, and the take is suspect.
    case noMotion = "no-motion"
    /// Too little rest to tell motion from; the labels are the prompt's.
    case noRest = "no-rest"
}

extension AlignmentStatus: DatabaseValueConvertible {}

/// A session's labels as the catalog holds them: its gesture, the spans its rows' labels follow
/// (nil: as the file has them), what aligning them found, and the stretch its file keeps (nil: all).
public struct SessionLabels: Codable, Sendable, Equatable {
    public var gesture: ActivityLabel
    public var labels: [LabelSpan]?
    public var alignment: AlignmentStatus?
    public var kept: ClosedRange<Double>?

    public init(
        gesture: ActivityLabel, labels: [LabelSpan]?, alignment: AlignmentStatus?, kept: ClosedRange<Double>? = nil
    ) {
        self.gesture = gesture
        self.labels = labels
        self.alignment = alignment
        self.kept = kept
    }
}

extension SessionRecord {
    public var sessionLabels: SessionLabels {
        get { SessionLabels(gesture: gesture, labels: labels, alignment: alignment, kept: kept) }
        set {
            (gesture, labels, alignment) = (newValue.gesture, newValue.labels, newValue.alignment)
            (keptFrom, keptTo) = (newValue.kept?.lowerBound, newValue.kept?.upperBound)
        }
    }

    public var kept: ClosedRange<Double>? { keptFrom.flatMap { from in keptTo.map { from...$0 } } }

    /// How the recorder marks a take while it records it.
    public static let recordingReason = "recording"
}

/// A change to a session's labels: what they were and become, the history's name for it, and
/// the change it undoes, if it is an undo.
public struct LabelChange: Sendable {
    public var id: SessionID
    public var before: SessionLabels
    public var after: SessionLabels
    public var action: String
    public var undoing: Int64?
    /// The session's rows within its new kept stretch, when that changes.
    public var sampleCount: Int?

    public init(
        _ id: SessionID, from before: SessionLabels, to after: SessionLabels, action: String, undoing: Int64? = nil,
        sampleCount: Int? = nil
    ) {
        self.sampleCount = sampleCount
        self.id = id
        self.before = before
        self.after = after
        self.action = action
        self.undoing = undoing
    }
}

/// A session's new status, and why.
public struct StatusChange: Sendable, Equatable {
    public var id: SessionID
    public var status: SessionStatus
    public var reason: String?

    public init(_ id: SessionID, _ status: SessionStatus, reason: String? = nil) {
        self.id = id
        self.status = status
        self.reason = reason
    }
}

/// Which sessions to list.
public struct SessionFilter: Sendable {
    public var user: UserID?
    public var gesture: ActivityLabel?
    public var status: SessionStatus?
    public var ids: [SessionID]?

    public init(
        user: UserID? = nil, gesture: ActivityLabel? = nil, status: SessionStatus? = nil, ids: [SessionID]? = nil
    ) {
        self.user = user
        self.gesture = gesture
        self.status = status
        self.ids = ids
    }
}

extension SessionRecord {
    /// The columns the catalog's queries filter and order by.
    public enum Columns {
        static let id = Column(CodingKeys.id)
        static let user = Column(CodingKeys.user)
        static let gesture = Column(CodingKeys.gesture)
        static let take = Column(CodingKeys.take)
        static let start = Column(CodingKeys.start)
        static let status = Column(CodingKeys.status)
        static let sampleCount = Column(CodingKeys.sampleCount)
    }
}

/// Why an analysis step cannot go on: one line, naming the file and line or what to change, in the
/// words of recordings and analysis. A command line adds its options' names through `setting` and
/// `remedy`.
public struct AnalysisError: Error, CustomStringConvertible {
    public var description: String
    /// The setting whose value is wrong, when one is.
    public var setting: AnalysisSetting?
    /// A setting that would get past the error, when one would.
    public var remedy: AnalysisSetting?

    public init(_ description: String, setting: AnalysisSetting? = nil, remedy: AnalysisSetting? = nil) {
        self.description = description
        self.setting = setting
        self.remedy = remedy
    }
}

/// The settings of analysis steps that errors name.
public enum AnalysisSetting: Sendable, Equatable {
    /// Which file columns hold which fields, on import.
    case columnMapping
    /// Which imported rows are reflected onto the other wrist.
    case mirror
    /// The user an import's rows belong to when the file has no user column.
    case user
    /// The label of an import's rows when the file has no label column.
    case label
    /// The sampling rate of an imported file without times.
    case sampleRate
    /// The rate sessions are downsampled to.
    case rate
    /// The rate sessions are downsampled to, with a value that gets past the error.
    case downsample(to: Double)
    /// The shares of sessions a split puts into validation and test.
    case splitShares
    /// What a split keeps apart: users or sessions.
    case splitBy(Split.Strategy)
    /// The users a split puts into test, or into validation.
    case testUsers
    case validationUsers
    /// Whether discarded sessions are selected too.
    case includeDiscarded
    /// The samples a plot draws of the selection.
    case slice
}

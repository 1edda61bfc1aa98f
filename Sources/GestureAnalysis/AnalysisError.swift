/// Why an analysis step cannot go on: one line, naming the file and line or what to change.
public struct AnalysisError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

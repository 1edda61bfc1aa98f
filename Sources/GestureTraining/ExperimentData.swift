import Foundation
import GestureAnalysis
import GestureCore
import GestureStore

/// The sessions of an experiment: a manifest's parts, or every selected session.
public struct ExperimentData: Sendable {
    /// The sessions to train on, or with `usingTestPart`, the ones to score.
    public var training: Dataset
    public var validation: Dataset?

    /// - Parameters:
    ///   - rate: the rate to downsample to; nil takes the manifest's, if it names one.
    ///   - usingTestPart: read the manifest's test part instead of its train and validation parts.
    public init(
        folder: RecordingsFolder, manifest path: String?, gestures: [ActivityLabel], rate: Double?,
        usingTestPart: Bool = false
    ) throws(AnalysisError) {
        let manifest = try path.map { path throws(AnalysisError) in try Manifest.read(path) }
        let loaded = try DatasetLoader(folder: folder).load()
        let rate = rate ?? manifest?.rate
        func select(_ ids: [SessionID]?) throws(AnalysisError) -> Dataset {
            let chosen = try SessionSelection(gestures: gestures, manifest: ids).apply(to: loaded)
            return try rate.map { rate throws(AnalysisError) in try chosen.downsampled(to: rate) } ?? chosen
        }
        let main: Manifest.Part = usingTestPart ? .test : .train
        if let manifest, let path, manifest.sessions(in: main).isEmpty {
            throw AnalysisError("the manifest \(path) has no \(main.rawValue) part")
        }
        training = try select(manifest?.sessions(in: main))
        let validationIDs = manifest?.sessions(in: .validation) ?? []
        validation = usingTestPart || validationIDs.isEmpty ? nil : try select(validationIDs)
    }
}

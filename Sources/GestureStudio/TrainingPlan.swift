import GestureAnalysis
import GestureCore
import GestureLearning
import GestureTraining

/// A start's request checked, and the experiment it makes: `gesture train`'s recipe and defaults
/// for what the request leaves out, the sessions held out to score the model on.
struct TrainingPlan: Sendable {
    var experiment: Experiment
    /// What is trained on and scored on, and with which settings.
    var summary: String

    init(_ request: TrainingRequest, recordings: StudioRecordings) throws(StudioError) {
        let copies = try Self.augmentations(request.augment ?? [])
        let randomConvolutions = try request.classifier.map { name throws(StudioError) in
            try Self.randomConvolutions(name)
        }
        if let epochs = request.epochs, !(1...GestureModel.largestSize).contains(epochs) {
            throw StudioError("epochs \(epochs) is not a number from 1 to \(GestureModel.largestSize)")
        }
        let parts: TrainingParts
        switch (request.manifest, request.sessions ?? []) {
        case (let manifest?, []): parts = try TrainingParts(manifest: manifest, in: recordings)
        case (nil, let sessions): parts = try TrainingParts(heldOutOf: sessions, in: recordings)
        case (_?, _): throw StudioError("tick sessions or choose a manifest, not both")
        }
        let recipe = TrainingRecipe(
            for: parts.training, augmentations: copies, epochs: request.epochs, randomConvolutions: randomConvolutions)
        do {
            experiment = try Experiment(
                name: "studio", features: recipe.features, window: recipe.window, layers: LayerSizes(),
                training: parts.training, augmentation: AugmentationPlan(recipe.augmentations),
                options: TrainingOptions(
                    epochs: recipe.epochs, batchSize: recipe.batchSize, motionRejection: recipe.motionRejection,
                    randomConvolutions: recipe.randomConvolutions, labelSmoothing: recipe.labelSmoothing),
                validation: parts.validation, test: parts.test)
        } catch {
            throw StudioError("\(error)")
        }
        summary = "\(parts.scoring); \(experiment.summary)"
    }

    /// `--augment`'s values: nil for the recipe's copies when none are given.
    private static func augmentations(_ names: [String]) throws(StudioError) -> [Augmentation]? {
        guard !names.isEmpty else { return nil }
        if names.contains("none") {
            guard names.count == 1 else {
                throw StudioError("augment none makes no copies; it cannot be given with others")
            }
            return []
        }
        return try names.map { name throws(StudioError) in
            guard let augmentation = Augmentation(rawValue: name) else {
                throw StudioError(
                    "augment '\(name)' is not one of none, \(Augmentation.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            return augmentation
        }
    }

    /// Whether `--classifier` adds the random convolutions to the network.
    private static func randomConvolutions(_ classifier: String) throws(StudioError) -> Bool {
        switch classifier {
        case "network": return false
        case "both": return true
        default: throw StudioError("classifier '\(classifier)' is not network or both")
        }
    }
}

/// The sessions to train on, to choose the epoch on, and to score the model on.
struct TrainingParts {
    var training: Dataset
    var validation: Dataset?
    /// Nil: the model is scored on the validation sessions.
    var test: Dataset?
    /// Where the scored sessions come from, as the page says it.
    var scoring: String

    /// A manifest's train and validation parts, as `gesture train --manifest` takes them; scored on
    /// its test part as `gesture evaluate --test` does, or without one on its validation part.
    init(manifest name: String, in recordings: StudioRecordings) throws(StudioError) {
        let path = recordings.folder.root.appending(name).string
        guard !name.contains("/"), recordings.isManifest(path) else {
            throw StudioError("\(name) is not a manifest of the recordings folder")
        }
        do {
            let parts = try ExperimentData(folder: recordings.folder, manifest: path, gestures: [], rate: nil)
            training = parts.training
            validation = parts.validation
            if try Manifest.read(path).sessions(in: .test).isEmpty {
                guard validation != nil else {
                    throw AnalysisError("the manifest \(name) has neither a test nor a validation part to score on")
                }
                scoring = "scored on \(name)'s validation part (it has no test part)"
            } else {
                test =
                    try ExperimentData(
                        folder: recordings.folder, manifest: path, gestures: [], rate: nil, usingTestPart: true
                    ).training
                scoring = "scored on \(name)'s test part"
            }
        } catch {
            throw StudioError("\(error)")
        }
    }

    /// The sessions ticked, a quarter of each gesture's (at least one of two or more) held out at
    /// random: they choose the epoch, as a manifest's validation part does, and are scored.
    init(heldOutOf ids: [String], in recordings: StudioRecordings) throws(StudioError) {
        guard !ids.isEmpty else { throw StudioError("tick the sessions to train on, or choose a manifest") }
        let dataset = try recordings.dataset()
        var chosen: [RecordedSession] = []
        for id in ids where !chosen.contains(where: { $0.id.rawValue == id }) {
            guard let session = dataset.session(SessionID(rawValue: id)) else {
                throw StudioError("no session \(id) among the recordings kept")
            }
            chosen.append(session)
        }
        var heldOut: Set<SessionID> = []
        for group in Dictionary(grouping: chosen, by: \.gesture).values where group.count > 1 {
            do {
                let split = try Split(strategy: .session, validation: 0, test: 0.25).entries(
                    for: Dataset(sessions: group))
                heldOut.formUnion(split.entries.filter { $0.part == .test }.map(\.session))
            } catch {
                throw StudioError("\(error)")
            }
        }
        guard !heldOut.isEmpty else {
            throw StudioError("tick two sessions or more of a gesture, so that one can be held out to score the model")
        }
        training = Dataset(sessions: chosen.filter { !heldOut.contains($0.id) })
        validation = Dataset(sessions: chosen.filter { heldOut.contains($0.id) })
        scoring = "\(heldOut.count) of the \(chosen.count) sessions held out to choose the epoch and be scored on"
    }
}

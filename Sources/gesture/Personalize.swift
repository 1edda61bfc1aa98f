import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCommandLine
import GestureCore
import GestureLearning
import GestureStore
import GestureTraining
import Synchronization

import struct SystemPackage.FilePath

struct Personalize: AsyncParsableCommand, NumberChecking {
    static let configuration = CommandConfiguration(
        abstract: "Make a model one person's, from their own takes; it can learn gestures the model never had.",
        discussion: """
            knn (the default, seconds) keeps the network and classifies each window by its nearest neighbours among \
            the person's windows; finetune trains the last layers again on them (the last take of each gesture \
            chooses the epoch when every gesture has 3 takes; Ctrl-C keeps the best so far). A gesture the person \
            did not record keeps the model's own recognition with knn; finetune needs takes of every gesture. The \
            result works wherever a model does; only finetune's also exports to Core ML, ONNX and C. --unlabeled \
            (method unlabeled) ignores the labels: it re-estimates batch norm's and the random convolutions' \
            statistics on the person's windows, trains the layers after the LSTM briefly on the windows the \
            model is then confident of and its rejection accepts, and re-estimates again; it keeps the model's \
            classes and rejection (docs/personalization.md has its figures). With --balanced it then shifts each \
            class so that the model predicts it over the sessions as often as its training windows held it. A model with random convolutions \
            (--classifier both) keeps them with knn and finetune, fitted again on the sessions it was trained on \
            (in --base-recordings) and the person's; unlabeled keeps them, their statistics the person's.
            """)

    @Option(help: "The model to personalise.") var model: String
    @OptionGroup var folder: FolderOptions
    @OptionGroup var selection: SelectionOptions
    @Option(help: "knn, finetune or unlabeled.") var method: Personalization.Method = .knn
    @Flag(help: "Ignore the sessions' labels: re-estimate the model's statistics on them (--method unlabeled).")
    var unlabeled = false
    @Flag(
        inversion: .prefixedNo,
        help: "unlabeled: train the layers after the LSTM on the windows the adapted model is confident of.")
    var selfTraining = true
    @Flag(
        help: """
            unlabeled: then shift each class's logits so that over the sessions the model predicts each class as \
            often as its training windows held it. Use it when the sessions hold the gestures about as the \
            training sessions did (each gesture in turn, as recorded for training), not on everyday motion alone.
            """)
    var balanced = false
    @Option(help: "unlabeled: the probability a window's top class needs to label the window for self-training.")
    var confidence = SelfTraining.defaultConfidence
    @Option(help: "knn: the layer whose activations windows are compared by: dense or lstm.")
    var embedding: Embedding = .dense
    @Option(help: "knn: the neighbours that vote.") var neighbours = 5
    @Option(help: "knn: the most windows kept of each class; more are reduced by k-means.") var prototypes = 64
    @Option(help: "finetune: the layers trained: dense (with batch norm and the output), lstm (and those), or all.")
    var layers: TunedLayers = .lstm
    @Option(help: "finetune: epochs.") var epochs = 60
    @Option(help: "finetune: Adam's learning rate.") var learningRate: Float = 0.001
    @Option(help: "finetune: the seed for shuffling and dropout.") var seed: UInt64 = 1
    @Option(
        help: """
            A model with random convolutions (--classifier both): the recordings folder holding its training \
            sessions, which they are fitted again on beside the person's windows (default: --recordings).
            """)
    var baseRecordings: String?
    @Option(help: "Random convolutions: how many times the person's windows count among the others'.")
    var personalRepeats = 20
    @Option(name: [.short, .long], help: "The model file to write (default: <model>-<user>.model).")
    var output: String?

    func checkNumbers() throws {
        for (name, value) in [
            ("--neighbours", neighbours), ("--prototypes", prototypes), ("--epochs", epochs),
            ("--personal-repeats", personalRepeats),
        ] {
            try Failure.check(name, value, in: 1...GestureModel.largestSize)
        }
        try Failure.check("--learning-rate", Double(learningRate), in: 1e-9...10, being: "a learning rate")
        try Failure.check("--confidence", Double(confidence), in: 0...1, being: "a probability")
    }

    func run() async throws {
        try checkNumbers()
        guard selection.users.count == 1 else {
            throw Failure.usage("personalize needs the person: one --user")
        }
        if unlabeled, self.method != .knn, self.method != .unlabeled {
            throw Failure.usage("--unlabeled is its own method, not --method \(self.method.rawValue)")
        }
        let method: Personalization.Method = unlabeled ? .unlabeled : self.method
        if balanced, method != .unlabeled {
            throw Failure.usage("--balanced balances an --unlabeled adaptation, not --method \(method.rawValue)")
        }
        if let output { try changing { try checkOutput(FilePath(output)) } }
        let base = try loadModel(model)
        var selection = selection
        if let rate = selection.rate, rate != base.samplingRate {
            throw Failure.usage(
                "--rate \(rate.shortText): personalising reads the sessions at the model's rate, \(base.samplingRate.shortText) Hz"
            )
        }
        selection.rate = base.samplingRate
        let dataset = try selection.dataset(in: folder)
        let sessions = try analysing {
            try PersonalSessions(base: base, baseName: (model as NSString).lastPathComponent, dataset: dataset)
        }
        describe(sessions, method: method)
        var (personal, signal) = try personalised(sessions, by: method)
        if method != .unlabeled, signal == nil, sessions.personalizer.randomConvolutionSettings != nil {
            personal = try withRandomConvolutions(personal, sessions)
        }
        if let shifts = personal.personalization?.classShifts {
            describe(ClassBalance(logitShifts: shifts), classNames: personal.classNames)
        }
        let path = output ?? (model as NSString).deletingPathExtension + "-\(sessions.user.rawValue).model"
        try write(personal.serialized(), to: path)
        Terminal.say("wrote \(path): classes \(personal.classNames.joined(separator: ", "))")
        if let signal { throw interrupted(by: signal) }
    }

    private func describe(_ sessions: PersonalSessions, method: Personalization.Method) {
        guard method != .unlabeled else {
            Terminal.say(
                "personalising for \(sessions.user.rawValue) from \(sessions.sequences.count.counting("session")), their labels ignored"
            )
            return
        }
        let takes = Personalization.takes(in: sessions.sequences, classNames: sessions.personalizer.classNames)
        Terminal.say(
            "personalising for \(sessions.user.rawValue) by \(method.rawValue) from \(sessions.sequences.count.counting("session")): "
                + takes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        if !sessions.newClasses.isEmpty {
            Terminal.say("new gestures: \(sessions.newClasses.joined(separator: ", "))")
        }
        let missing = sessions.classesWithoutTakes
        if !missing.isEmpty, method == .knn {
            Terminal.note(
                "no windows of \(missing.joined(separator: ", ")): the model's own recognition is kept for them")
        }
    }

    /// What --balanced did to each class, and a note on those it made so much likelier that the
    /// sessions may not hold them.
    private func describe(_ balance: ClassBalance, classNames: [String]) {
        let factors = balance.logitShifts.map(exp)
        Terminal.say(
            "balanced the classes over the sessions, each class's probability times "
                + zip(classNames, factors).map { "\($0) \(String(format: "%.2f", $1))" }.joined(separator: ", "))
        for index in balance.doubtfulClasses {
            Terminal.note(
                "\(classNames[index]) made \(String(format: "%.2f", factors[index])) times as likely: if the sessions "
                    + "do not hold it, leave out --balanced, which pushes a missing gesture onto the others' motion")
        }
    }

    /// The personal model, and the signal that stopped fine-tuning early, if one did.
    private func personalised(
        _ sessions: PersonalSessions, by method: Personalization.Method
    ) throws -> (GestureModel, Int32?) {
        switch method {
        case .knn: (try nearestNeighbours(sessions), nil)
        case .finetune: try finetune(sessions)
        case .unlabeled:
            (
                try learning {
                    try sessions.personalizer.adaptingNormalization(
                        sessions.sequences, user: sessions.user,
                        selfTraining: selfTraining ? SelfTraining(confidence: confidence) : nil,
                        balancingClasses: balanced)
                }, nil
            )
        }
    }

    /// `personal` beside the base model's random convolutions fitted again on its training sessions
    /// and the person's; without them when none of those sessions is to be found.
    private func withRandomConvolutions(_ personal: GestureModel, _ sessions: PersonalSessions) throws -> GestureModel {
        let path = baseRecordings ?? folder.path
        let others = try analysing {
            try sessions.baseTraining(
                in: try DatasetLoader(folder: RecordingsFolder(FilePath(path))).load(), seed: seed)
        }
        guard !others.isEmpty else {
            Terminal.note(
                "\(path) holds none of the sessions \(model) was trained on: its random convolutions are left out "
                    + "(--base-recordings names where they are)")
            return personal
        }
        Terminal.say(
            "fitting the random convolutions again on \(others.count.counting("session")) \(model) was trained on "
                + "(copies included) and those of \(sessions.user.rawValue), counted \(personalRepeats) times")
        return try learning {
            try sessions.personalizer.withRandomConvolutions(
                personal, others: others, personal: sessions.sequences, repeats: personalRepeats, seed: seed)
        }
    }

    private func nearestNeighbours(_ sessions: PersonalSessions) throws -> GestureModel {
        try learning {
            try sessions.personalizer.nearestNeighbours(
                sessions.sequences, user: sessions.user, embedding: embedding, k: neighbours,
                prototypesPerClass: prototypes)
        }
    }

    /// The model of the epoch kept, and the signal that stopped training early, if one did.
    private func finetune(_ sessions: PersonalSessions) throws -> (GestureModel, Int32?) {
        let (training, validation) = sessions.heldOut()
        Terminal.say(
            validation.isEmpty
                ? "no take held out (every gesture needs 3 takes for one): the epoch of the lowest training loss is kept"
                : "holding out the last take of each gesture (\(validation.count.counting("session"))) to choose the epoch"
        )
        let stop = Atomic<Bool>(false)
        let signals = SignalWatch { _ in stop.store(true, ordering: .relaxed) }
        let started = Date()
        let result = try learning {
            try sessions.personalizer.finetune(
                training, validation: validation, user: sessions.user, layers: layers,
                options: TrainingOptions(epochs: epochs, learningRate: learningRate, seed: seed),
                onEpoch: { report in
                    let elapsed = Date().timeIntervalSince(started)
                    let left = elapsed / Double(report.epoch) * Double(epochs - report.epoch)
                    Terminal.say(Reports.epochLine(report, of: epochs, secondsLeft: left))
                }, isCancelled: { stop.load(ordering: .relaxed) })
        }
        Terminal.say(
            "\(result.wasCancelled ? "stopped; " : "")kept epoch \(result.bestEpoch) of \(result.history.count)")
        return (result.model, signals.received)
    }
}
extension Personalization.Method: ExpressibleByArgument {}
extension Embedding: ExpressibleByArgument {}
extension TunedLayers: ExpressibleByArgument {}

/// Runs learning code, turning its errors into one-line usage failures.
func learning<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as TrainingError {
        throw Failure.usage(error.description)
    }
}

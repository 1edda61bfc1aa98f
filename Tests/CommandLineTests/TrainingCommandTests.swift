import Foundation
import GestureCore
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Four simulated people, two gestures, two takes each at 25 Hz, split by user: recorded once
/// through `gesture record` and `gesture split`, then copied for each test that changes them.
private let recorded = SharedFixture {
    let folder = try TemporaryFolder()
    for (seed, user) in ["ann", "bob", "cy", "dee"].enumerated() {
        for gesture in ["shake", "chop"] {
            try runGesture(
                [
                    "record", "--device", "sim", "--user", user, "--gesture", gesture, "--takes", "2", "--take", "3",
                    "--fast", "--quiet", "--keep", "--append", "--seed", "\(seed + 1)", "--rate", "25",
                ],
                in: folder.path
            ).succeeded()
        }
    }
    try runGesture(["split", "--by", "user", "--seed", "3", "-o", "split.txt"], in: folder.path).succeeded()
    return folder
}

/// A copy of the recorded folder whose recording files `change` rewrote, row by row.
private func recordings(changing change: (inout [RecordingRow]) throws -> Void = { _ in }) throws -> TemporaryFolder {
    let copy = try TemporaryFolder()
    try FileManager.default.removeItem(atPath: copy.path.string)
    try FileManager.default.copyItem(atPath: recorded.value().path.string, toPath: copy.path.string)
    let folder = copy.path.appending("recordings")
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.string) where name.hasSuffix(".csv") {
        let path = folder.appending(name)
        var rows = try readRows(path)
        try change(&rows)
        let text = ([RecordingCSV.header] + rows.map(RecordingCSV.line(for:))).joined(separator: "\n") + "\n"
        try text.write(toFile: path.string, atomically: true, encoding: .utf8)
    }
    return copy
}

private func manifest(in folder: TemporaryFolder) throws -> Manifest {
    let file = folder.path.appending("split.txt").string
    return try Manifest(text: String(contentsOfFile: file, encoding: .utf8), file: file)
}

private func isXML(_ path: FilePath) -> Bool {
    guard let data = FileManager.default.contents(atPath: path.string) else { return false }
    return XMLParser(data: data).parse()
}

/// `gesture train` and `gesture evaluate` as a person runs them, in child processes.
@Suite struct TrainingCommandLineTests {
    @Test func trainThenEvaluateWritesTheModelHistoryAndConfusionMatrix() throws {
        let folder = try recordings()
        let train = try runGesture(
            ["train", "--manifest", "split.txt", "--epochs", "3", "--average-epochs", "0", "--output", "m.model"],
            in: folder.path)
        #expect(train.status == 0, "\(train.error)")
        #expect(
            train.output.split(separator: "\n").filter { $0.hasPrefix("epoch ") && $0.contains("validation loss") }
                .count == 3)
        #expect(FileManager.default.fileExists(atPath: folder.path.appending("m.model").string))
        let history = try String(contentsOfFile: folder.path.appending("m.history.csv").string, encoding: .utf8)
        let rows = history.split(separator: "\n").dropFirst()
        #expect(rows.map { $0.split(separator: ",", omittingEmptySubsequences: false).first } == ["1", "2", "3"])
        #expect(isXML(folder.path.appending("m.history.svg")))
        let kept = try #require(train.output.firstMatch(of: #/kept epoch ([0-9]) of 3/#)?.1)
        let historySVG = try String(contentsOfFile: folder.path.appending("m.history.svg").string, encoding: .utf8)
        #expect(historySVG.components(separatedBy: ">kept epoch \(kept)</text>").count == 3, "marked on both panels")

        let evaluate = try runGesture(["evaluate", "m.model", "--test", "split.txt"], in: folder.path)
        #expect(evaluate.status == 0, "\(evaluate.error)")
        let accuracy = try #require(evaluate.output.firstMatch(of: #/window accuracy ([0-9.]+)/#)?.1)
        #expect((0...1).contains(Double(accuracy)!))
        #expect(evaluate.output.contains("confusion matrix (rows: target, columns: predicted)"))
        #expect(isXML(folder.path.appending("m.confusion.svg")))
    }

    @Test func augmentationAddsACopyOfEveryTrainingSession() throws {
        let folder = try recordings()
        let plain = try runGesture(
            ["train", "--manifest", "split.txt", "--epochs", "1", "--augment", "none"], in: folder.path)
        let augmented = try runGesture(
            [
                "train", "--manifest", "split.txt", "--epochs", "2", "--augment", "mirror", "--augment", "rotate",
                "--rotation", "10", "--mirror-axis", "y", "--schedule", "cosine", "--augment", "warp", "--warp", "1.7",
                "--augment", "scale", "--scale", "1.4",
            ], in: folder.path)
        #expect(plain.status == 0 && augmented.status == 0, "\(plain.error)\(augmented.error)")
        let sessions = { (output: String) in output.firstMatch(of: #/training on ([0-9]+) sessions/#).map { Int($0.1)! }
        }
        let count = try #require(sessions(plain.output))
        #expect(sessions(augmented.output) == 5 * count)
        // The model records the sessions as recorded, not their copies.
        let all = try runGesture(["evaluate", "gesture.model"], in: folder.path).succeeded()
        #expect(
            all.error.contains("warning: \(count) of the 16 test sessions were in its training set"), "\(all.error)")
        let test = try runGesture(["evaluate", "gesture.model", "--test", "split.txt"], in: folder.path).succeeded()
        #expect(test.error.isEmpty, "\(test.error)")
    }

    /// A smoothed network's logits are scaled back after training, and `train` says by how much.
    @Test func labelSmoothingSaysTheScaleItsLogitsWereMultipliedBy() throws {
        let folder = try recordings()
        let arguments = ["train", "--manifest", "split.txt", "--epochs", "3", "--augment", "none"]
        let said = try runGesture(arguments + ["--label-smoothing", "0.3"], in: folder.path).succeeded()
        let scale = try #require(
            said.output.firstMatch(of: #/the network's logits are multiplied by ([0-9.]+)/#).flatMap { Double($0.1) },
            "\(said.output)")
        let json = try runGesture(arguments + ["--label-smoothing", "0.3", "--json"], in: folder.path).succeeded()
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(json.output.split(separator: "\n").last!.utf8))
                as? [String: Any])
        #expect(abs((report["logitScale"] as? Double ?? 0) - scale) < 0.01, "\(json.output)")
        let plain = try runGesture(arguments + ["--json"], in: folder.path).succeeded()
        #expect(!plain.output.contains("logitScale") && !said.output.contains("logitScale"))
    }

    /// With no options, `train` takes the recipe for new people, fitted to the data's rate, and says so.
    @Test func theDefaultsAreTheRecipeForNewPeopleAndSayWhatTheyChose() throws {
        let folder = try recordings()
        let defaults = try runGesture(["train", "--manifest", "split.txt"], in: folder.path).succeeded()
        let historySVG = try String(
            contentsOfFile: folder.path.appending("gesture.history.svg").string, encoding: .utf8)
        let quickest = try runGesture(
            ["train", "--manifest", "split.txt", "--augment", "none", "--window", "15", "--epochs", "1"],
            in: folder.path
        ).succeeded()
        let sessions = { (output: String) in output.firstMatch(of: #/training on ([0-9]+) sessions/#).map { Int($0.1)! }
        }
        let recorded = try #require(sessions(quickest.output))
        #expect(sessions(defaults.output) == 6 * recorded)
        #expect(defaults.output.contains("9 features at 25 Hz"))
        #expect(
            defaults.output.contains(
                "chose for people the model has not seen: window 20 (0.8 s at 25 Hz), features rotX rotY rotZ gravX "
                    + "gravY gravZ accelX accelY accelZ, copies mirror rotate rotate warp warp, 10 epochs, "
                    + "the weights of the last 5 epochs averaged, batches of 4; "
                    + "--augment none trains the quickest model\n"), "\(defaults.output)")
        #expect(defaults.output.split(separator: "\n").filter { $0.hasPrefix("epoch ") }.count == 10)
        #expect(defaults.output.contains("kept the mean of epochs 6–10 of 10 in "))
        #expect(historySVG.components(separatedBy: ">mean of epochs 6–10</text>").count == 3, "marked on both panels")
        #expect(quickest.output.contains("chose for people the model has not seen: features rotX"))
        #expect(!quickest.output.contains("window 15") && !quickest.output.contains("copies"))
        let both = try runGesture(["train", "--augment", "none", "--augment", "warp"], in: folder.path)
        #expect(both.status == 2)
        #expect(both.error == "gesture: --augment none makes no copies; it cannot be given with others\n")
    }

    /// `--classifier both` trains random convolutions beside the network; evaluation and detection
    /// use them, and an export says it leaves them out.
    @Test func randomConvolutionsBesideTheNetworkTravelInTheModel() throws {
        let folder = try recordings()
        let options = ["train", "--manifest", "split.txt", "--epochs", "2", "--augment", "none"]
        let both = try runGesture(options + ["--classifier", "both", "--output", "both.model"], in: folder.path)
            .succeeded()
        #expect(
            both.output.contains(
                "and beside the network, once it is trained, random convolutions over 100 samples (2016 features, "
                    + "ridge penalty 0.01)\n"),
            "4 s at 25 Hz: \(both.output)")
        let network = try runGesture(options + ["--output", "network.model"], in: folder.path).succeeded()
        #expect(!network.output.contains("random convolutions"))
        let accuracy = { (model: String) throws -> Substring? in
            try runGesture(["evaluate", model, "--test", "split.txt"], in: folder.path).succeeded().output
                .firstMatch(of: #/window accuracy ([0-9.]+)/#)?.1
        }
        #expect(try accuracy("both.model") != nil && accuracy("network.model") != nil)
        let detect = try runGesture(
            [
                "detect", "--device", "sim", "--model", "both.model", "--fast", "--perform", "shake", "--threshold",
                "0", "--predictions",
            ], in: folder.path
        ).succeeded()
        #expect(detect.output.contains("shake"), "\(detect.output.prefix(300))")
        for format in ["onnx", "c", "coreml"] {
            let export = try runGesture(
                ["export", "both.model", "--format", format, "-o", "both.\(format)"], in: folder.path
            )
            .succeeded()
            #expect(!export.error.contains("warning"), "\(format): \(export.error)")
            #expect(
                export.error.contains("random convolutions read the last 100 samples") == (format == "coreml"),
                "the book's app must feed them back: \(export.error)")
        }
        let bad = try runGesture(options + ["--classifier", "forest"], in: folder.path)
        #expect(bad.status == 2 && bad.error.contains("'forest'"), "\(bad.error)")
    }

    @Test func overfittingTwoSessionsFits() throws {
        let folder = try recordings()
        let result = try runGesture(["train", "--overfit", "2", "--epochs", "200"], in: folder.path)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("fits: "))
        #expect(result.output.contains("windows of 2 sessions"))
    }

    @Test func badInputIsOneLineAndExitCodeTwoBeforeTraining() throws {
        let split = try manifest(in: recorded.value())
        let validation = Set(split.sessions(in: .validation))
        let firstTraining = split.sessions(in: .train)[0]
        let cases: [(TemporaryFolder, [String], String)] = [
            (
                try recordings { rows in
                    let beyondTen = Set(rows.indices.filter { rows[$0].session == firstTraining }.dropFirst(10))
                    rows = rows.indices.filter { !beyondTen.contains($0) }.map { rows[$0] }
                }, [], "session \(firstTraining) has 10 samples, fewer than one window of 20"
            ),
            (try recordings(), ["--features", "rotX", "wobble"], "no feature 'wobble'; the features are roll, pitch"),
            (
                try recordings { rows in
                    // One shake sample per session: never the majority of a window.
                    var seen = Set<SessionID>()
                    for index in rows.indices
                    where rows[index].activity.rawValue == "shake" && !seen.insert(rows[index].session).inserted {
                        rows[index].activity = .rest
                    }
                }, [], "no training window is labeled shake"
            ),
            (
                try recordings { rows in
                    if let index = rows.firstIndex(where: { $0.session == firstTraining }) {
                        rows[index + 5].motion.userAcceleration.x = .nan
                    }
                }, [], "session \(firstTraining) has nan in accelX"
            ),
            (
                try recordings { rows in
                    for index in rows.indices
                    where validation.contains(rows[index].session) && rows[index].activity.rawValue == "chop" {
                        rows[index].activity = try ActivityLabel("wave")
                    }
                }, [], "has the class 'wave', which the training set lacks"
            ),
            (try recordings(), ["--window", "0"], "--window 0 is not a number from 1 to 65536"),
            (
                try recordings(), ["--window", "\(Int.max)"],
                "--window \(Int.max) is not a number from 1 to 65536"
            ),
            (
                try recordings(), ["--lstm-units", "60000"],
                "a model of window 20, layers 64/60000/128 and batch 32 needs about"
            ),
            (
                try recordings(), ["--augment", "rotate", "--rotation", "200"],
                "--rotation 200 is not an angle in degrees from 0 to 180"
            ),
            (try recordings(), ["--augment", "warp", "--warp", "0.5"], "--warp 0.5 is not a factor from 1 to 4"),
            (try recordings(), ["--scale", "9"], "--scale 9 is not a factor from 1 to 4"),
            (
                try recordings(), ["--output", "recordings/m.model"],
                "--output recordings/m.model would put its history CSV among the recordings"
            ),
        ]
        for (folder, arguments, message) in cases {
            let result = try runGesture(
                ["train", "--manifest", "split.txt", "--epochs", "1"] + arguments, in: folder.path)
            #expect(result.status == 2, "\(message): \(result.output)")
            #expect(result.error.hasPrefix("gesture: "))
            #expect(result.error.contains(message), "\(result.error)")
            #expect(result.error.split(separator: "\n").count == 1, "\(result.error)")
            #expect(!FileManager.default.fileExists(atPath: folder.path.appending("gesture.model").string))
        }
    }

    @Test func ctrlCDuringTrainingKeepsTheBestModelSoFar() async throws {
        let folder = try recordings()
        let (status, output) = try await interrupt(
            ["train", "--manifest", "split.txt", "--epochs", "10000", "--output", "m.model"], in: folder.path,
            at: "epoch   1/")
        #expect(status == 128 + SIGINT)
        let epochs = output.split(separator: "\n").filter { $0.hasPrefix("epoch ") }.count
        #expect(epochs >= 1 && epochs < 10000)
        #expect(output.contains("stopped; kept epoch "))
        #expect(
            try String(contentsOfFile: folder.path.appending("m.history.csv").string, encoding: .utf8)
                .split(separator: "\n").count == epochs + 1)
        let evaluate = try runGesture(["evaluate", "m.model", "--test", "split.txt"], in: folder.path)
        #expect(evaluate.status == 0, "\(evaluate.error)")
    }
}

@Suite struct PersonalizeInterruptTests {
    @Test func ctrlCDuringFinetuningWritesTheBestModelSoFar() async throws {
        let folder = try recordings()
        try runGesture(["train", "--manifest", "split.txt", "--epochs", "1", "--output", "m.model"], in: folder.path)
            .succeeded()
        let (status, output) = try await interrupt(
            [
                "personalize", "--model", "m.model", "--user", "dee", "--method", "finetune", "--epochs", "65536",
                "-o", "dee.model",
            ], in: folder.path, at: "epoch   1/")
        #expect(status == 128 + SIGINT, "\(output)")
        #expect(output.contains("wrote dee.model"))
        let evaluate = try runGesture(["evaluate", "dee.model", "--test", "split.txt"], in: folder.path)
        #expect(evaluate.status == 0, "\(evaluate.error)")
    }
}

@Suite struct CrossvalCommandTests {
    @Test func theFirstCtrlCStopsCrossvalWithTheSignalsExitCode() async throws {
        let (status, error) = try await interrupt(
            ["crossval", "--epochs", "65536"], in: try trained.path, at: "leaving ann out (1 of 3)",
            watchingErrors: true)
        #expect(status == 128 + SIGINT)
        #expect(error.contains("stopped before the first of 3 folds ended"), "\(error)")
    }

    @Test func eachPersonIsLeftOutInTurnAndTheSummaryIsTheirMean() throws {
        let result = try runGesture(["crossval", "--epochs", "2", "--json"], in: trained.path).succeeded()
        let lines = try result.output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(lines.dropLast().map { $0["user"] as? String } == ["ann", "ben", "cat"])
        let accuracies = lines.dropLast().compactMap { $0["windowAccuracy"] as? Double }
        #expect(accuracies.count == 3 && accuracies.allSatisfy { (0...1).contains($0) })
        let summary = try #require(lines.last)
        #expect(summary["folds"] as? Int == 3)
        let mean = try #require(summary["meanWindowAccuracy"] as? Double)
        #expect(abs(mean - accuracies.reduce(0, +) / 3) < 1e-9)
        #expect(summary["least"] as? Double == accuracies.min() && summary["most"] as? Double == accuracies.max())
        for (fold, accuracy) in zip(lines.dropLast(), accuracies) {
            let mistakes = try #require(fold["mostConfused"] as? [[String: Any]])
            let shares = mistakes.compactMap { $0["share"] as? Double }
            #expect(mistakes.count <= 3 && shares.count == mistakes.count && shares == shares.sorted(by: >))
            #expect(mistakes.isEmpty == (accuracy == 1), "only a perfect fold has no mistakes")
            for mistake in mistakes {
                let target = try #require(mistake["target"] as? String)
                let predicted = try #require(mistake["predicted"] as? String)
                #expect(
                    target != predicted && Set([target, predicted]).isSubset(of: ["shake", "chop", "drive", "rest"]))
                #expect((mistake["windows"] as? Int ?? 0) > 0)
            }
        }
        let text = try runGesture(["crossval", "--epochs", "2"], in: trained.path).succeeded().output
        #expect(
            text.split(separator: "\n").filter { $0.contains(" left out: ") && $0.contains("; most confused: ") }.count
                == 3)
    }

    @Test func onePersonCannotBeLeftOut() throws {
        let folder = try TemporaryFolder()
        try runGesture(
            [
                "record", "--device", "sim", "--user", "solo", "--gesture", "shake", "--takes", "1", "--fast",
                "--quiet", "--keep",
            ],
            in: folder.path
        ).succeeded()
        let result = try runGesture(["crossval", "--epochs", "1"], in: folder.path)
        #expect(result.status != 0)
        #expect(result.error.contains("leaving a person out needs at least two people"))
    }
}

@Suite struct TemporalArchitectureCommandTests {
    @Test(arguments: [1, 3])
    func aTemporalModelTrainsDetectsAndIsNotExported(layers: Int) throws {
        let folder = try trained
        // The folder is shared: each case writes its own files.
        let model = "temporal-\(layers).model"
        try runGesture(
            [
                "train", "--architecture", "temporal", "--temporal-filters", "4", "--temporal-layers", "\(layers)",
                "--epochs", "2", "--output", model,
            ],
            in: folder.path
        ).succeeded()
        let scored = try runGesture(
            [
                "evaluate", model, "--recordings", "unseen", "--gesture", "shake", "--confusion",
                "temporal-\(layers).svg",
            ],
            in: folder.path
        ).succeeded()
        #expect(scored.output.contains("window accuracy"))
        try runGesture(
            ["detect", "--model", model, "--fast", "--device", "replay:unseen/zed-recordings.csv"],
            in: folder.path
        ).succeeded()
        let export = try runGesture(
            ["export", model, "--format", "coreml", "-o", "temporal-\(layers).mlmodel"], in: folder.path)
        #expect(export.status != 0)
        #expect(export.error.contains("temporal convolution") && export.error.contains("--architecture turi"))
    }

    @Test func stackedConvolutionsMustFitInAWindow() throws {
        let folder = try TemporaryFolder()
        let result = try runGesture(
            ["train", "--architecture", "temporal", "--temporal-layers", "5", "--window", "20"], in: folder.path)
        #expect(result.status == 2)
        #expect(
            result.error
                == "gesture: --temporal-layers 5 of --temporal-kernel 5 do not fit in --window 20\n")
        // Without --window, the one the recipe takes for the data: 10 samples at 10 Hz.
        try runGesture(
            [
                "record", "--device", "sim", "--user", "ann", "--gesture", "shake", "--takes", "1", "--rate", "10",
                "--fast", "--quiet", "--keep",
            ], in: folder.path
        ).succeeded()
        let slow = try runGesture(["train", "--architecture", "temporal", "--temporal-layers", "3"], in: folder.path)
        #expect(slow.status == 2)
        #expect(slow.error == "gesture: --temporal-layers 3 of --temporal-kernel 5 do not fit in --window 10\n")
    }
}

/// Runs gesture in `folder` until its standard output (or its standard error, `watchingErrors`)
/// says `cue`, then sends it SIGINT; returns how it exited (-1 if not by exit) and what it said there.
func interrupt(
    _ arguments: [String], in folder: FilePath, at cue: String, watchingErrors: Bool = false
) async throws -> (status: Int32, said: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: gestureExecutable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: folder.string)
    let log = folder.appending("\(arguments[0])-\(UUID().uuidString).log").string
    #expect(FileManager.default.createFile(atPath: log, contents: nil))
    let watched = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    (process.standardOutput, process.standardError) =
        watchingErrors ? (FileHandle.nullDevice, watched) : (watched, FileHandle.nullDevice)
    try process.runDyingWithTests()
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline, !((try? String(contentsOfFile: log, encoding: .utf8))?.contains(cue) ?? false) {
        try await Task.sleep(for: .milliseconds(20))
    }
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    let said = try String(contentsOfFile: log, encoding: .utf8)
    return (process.terminationReason == .exit ? process.terminationStatus : -1, said)
}

import Foundation
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// zed's own takes, a new gesture among them, recorded once beside the trained model.
private let personalFolder = SharedFixture {
    let folder = try trained
    for gesture in ["shake", "chop", "drive", "wave"] {
        try runGesture(
            [
                "record", "--device", "sim", "--user", "zed", "--gesture", gesture, "--takes", "4", "--rate", "25",
                "--fast", "--quiet",
                "--keep", "--append", "--seed", "5", "--recordings", "personal",
            ],
            in: folder.path
        ).succeeded()
    }
    return folder
}

@Suite struct PersonalizeCommandTests {
    private func gesture(_ arguments: [String]) throws -> ProcessResult {
        try runGesture(arguments, in: personalFolder.value().path)
    }

    @Test func aKNNModelLearnsTheNewGestureAndWorksWhereAModelWorksButExport() throws {
        let made = try gesture([
            "personalize", "--model", "m.model", "--recordings", "personal", "--user", "zed", "-o", "zed-knn.model",
        ]).succeeded()
        #expect(made.output.contains("personalising for zed by knn from 16 sessions: chop 4, drive 4, shake 4, wave 4"))
        #expect(made.output.contains("new gestures: wave"))
        #expect(made.output.hasSuffix("wrote zed-knn.model: classes chop, drive, rest, shake, wave\n"))
        let scored = try gesture(["evaluate", "zed-knn.model", "--recordings", "personal", "--confusion", "k.svg"])
            .succeeded()
        #expect(
            scored.error.contains("16 of the 16 test sessions personalised it for zed: these figures are not a test"))
        #expect(scored.output.contains("== zed's own sessions (the model is personalised for zed)"))
        #expect(scored.output.contains("== everyone else's sessions (the model is personalised for zed)\nnone"))
        let detected = try gesture([
            "detect", "--model", "zed-knn.model", "--fast", "--device", "replay:personal/zed-recordings.csv", "--json",
        ]).succeeded()
        #expect(detected.output.contains("\"gesture\":\"wave\""))
        let export = try gesture(["export", "zed-knn.model", "--format", "onnx", "-o", "zed.onnx"])
        #expect(export.status != 0)
        #expect(export.error.contains("zed-knn.model: the model is personalised by k nearest neighbours"))
        #expect(!FileManager.default.fileExists(atPath: try personalFolder.value().path.appending("zed.onnx").string))
    }

    @Test func aFineTunedModelHoldsOutTheLastTakesAndExports() throws {
        let made = try gesture([
            "personalize", "--model", "m.model", "--recordings", "personal", "--user", "zed", "--method", "finetune",
            "--epochs", "3", "-o", "zed-tuned.model",
        ]).succeeded()
        #expect(made.output.contains("holding out the last take of each gesture (4 sessions) to choose the epoch"))
        #expect(made.output.contains("epoch   3/3"))
        let export = try gesture(["export", "zed-tuned.model", "--format", "onnx", "-o", "zed-tuned.onnx"]).succeeded()
        #expect(export.output.hasPrefix("wrote zed-tuned.onnx ("))
    }

    @Test func playRecordsThePlayersTakesAndPersonalisesBeforeTheGame() throws {
        let result = try gesture([
            "play", "--device", "sim", "--model", "m.model", "--personalize", "1", "--user", "pia", "--recordings",
            "play-pia", "--fast",
            "--quiet", "--rounds", "2", "--seed", "2",
        ]).succeeded()
        #expect(result.output.contains("» pia: 1 takes of chop before the game"))
        #expect(result.output.contains("personalising for pia by knn from 3 sessions: chop 1, drive 1, shake 1"))
        #expect(result.output.contains("wrote m-pia.model: classes chop, drive, rest, shake"))
        #expect(result.output.contains("final score"))
        let model = try runGesture(
            ["evaluate", "m-pia.model", "--recordings", "play-pia", "--confusion", "p.svg"],
            in: personalFolder.value().path)
        #expect(model.output.contains("== pia's own sessions"))
    }

    @Test func anUnlabeledModelWithoutSelfTrainingChangesOnlyBatchNormsStatisticsAndKeepsTheRejection() throws {
        let made = try gesture([
            "personalize", "--model", "m.model", "--recordings", "personal", "--user", "zed", "--unlabeled",
            "--no-self-training", "-o", "zed-unlabeled.model",
        ]).succeeded()
        #expect(made.output.contains("personalising for zed from 16 sessions, their labels ignored"))
        #expect(made.output.hasSuffix("wrote zed-unlabeled.model: classes chop, drive, rest, shake\n"))
        let folder = try personalFolder.value().path
        let base = try ModelFileParts(folder.appending("m.model")),
            adapted = try ModelFileParts(
                folder.appending("zed-unlabeled.model"))
        let rejection = try #require(base.header["rejection"] as? NSDictionary)
        #expect(adapted.header["rejection"] as? NSDictionary == rejection)
        let personalization = try #require(adapted.header["personalization"] as? [String: Any])
        #expect(personalization["method"] as? String == "unlabeled" && personalization["user"] as? String == "zed")
        let architecture = try #require(base.header["architecture"] as? [String: Any])
        let denseUnits = try #require(architecture["denseUnits"] as? Int)
        #expect(adapted.floats.count == base.floats.count)
        let changed = base.floats.indices.filter { base.floats[$0] != adapted.floats[$0] }
        #expect(!changed.isEmpty && changed.count <= 2 * denseUnits, "only the running mean and variance")
        #expect((changed.last ?? 0) - (changed.first ?? 0) < 2 * denseUnits)
        let mixed = try gesture([
            "personalize", "--model", "m.model", "--recordings", "personal", "--user", "zed", "--unlabeled",
            "--method", "finetune",
        ])
        #expect(mixed.status != 0 && mixed.error.contains("--unlabeled is its own method, not --method finetune"))
    }

    /// --balanced shifts the four classes' logits after adapting: the model differs from the one
    /// adapted alone in the output layer's bias only, and the file records the shifts. Sessions
    /// without one of the gestures get a note that it was made much likelier.
    @Test func aBalancedUnlabeledModelDiffersOnlyInItsOutputBias() throws {
        let adapt = [
            "personalize", "--model", "m.model", "--recordings", "personal", "--user", "zed", "--unlabeled",
            "--no-self-training",
        ]
        let known = ["--gesture", "shake", "--gesture", "chop", "--gesture", "drive"]
        try gesture(adapt + known + ["-o", "zed-adapted.model"]).succeeded()
        let made = try gesture(adapt + known + ["--balanced", "-o", "zed-balanced.model"]).succeeded()
        #expect(
            made.output.contains("balanced the classes over the sessions, each class's probability times chop "),
            "\(made.output)")
        let folder = try personalFolder.value().path
        let adapted = try ModelFileParts(folder.appending("zed-adapted.model")),
            balanced = try ModelFileParts(folder.appending("zed-balanced.model"))
        let personalization = try #require(balanced.header["personalization"] as? [String: Any])
        let shifts = try #require(personalization["classShifts"] as? [Double])
        #expect(shifts.count == 4 && shifts.contains { $0 != 0 })
        let record = try #require(balanced.header["trainingRecord"] as? [String: Any])
        let shares = try #require(record["classShares"] as? [Double])
        #expect(shares.count == 4 && abs(shares.reduce(0, +) - 1) < 1e-9)
        #expect(adapted.floats.count == balanced.floats.count)
        let changed = adapted.floats.indices.filter { adapted.floats[$0] != balanced.floats[$0] }
        #expect(!changed.isEmpty && changed.count <= 4 && changed.last! - changed.first! < 4, "the output bias")
        #expect(!made.error.contains("times as likely"), "\(made.error)")
        let withoutDrive = try gesture(
            adapt + ["--balanced", "--gesture", "shake", "--gesture", "chop", "-o", "zed-no-drive.model"]
        ).succeeded()
        #expect(
            withoutDrive.error.contains(
                "times as likely: if the sessions do not hold it, leave out --balanced, which pushes a missing gesture "
                    + "onto the others' motion"), "\(withoutDrive.error)")
        #expect(withoutDrive.error.contains("drive made "), "\(withoutDrive.output)")
        let mixed = try gesture([
            "personalize", "--model", "m.model", "--recordings", "personal", "--user", "zed", "--balanced",
        ])
        #expect(
            mixed.status != 0 && mixed.error.contains("--balanced balances an --unlabeled adaptation, not --method knn")
        )
    }

    /// Self-training (the default) trains the layers after the LSTM: the convolution and the LSTM,
    /// whose output the rejection measures, stay bit for bit, and so does the rejection.
    @Test func anUnlabeledModelSelfTrainedChangesOnlyTheLayersAfterTheLSTMAndKeepsTheRejection() throws {
        try gesture([
            "personalize", "--model", "m.model", "--recordings", "personal", "--user", "zed", "--unlabeled",
            "--confidence", "0.8", "-o", "zed-selftrained.model",
        ]).succeeded()
        let folder = try personalFolder.value().path
        let base = try ModelFileParts(folder.appending("m.model")),
            adapted = try ModelFileParts(folder.appending("zed-selftrained.model"))
        #expect(adapted.header["rejection"] as? NSDictionary == base.header["rejection"] as? NSDictionary)
        let architecture = try #require(base.header["architecture"] as? [String: Any])
        let dense = try #require(architecture["denseUnits"] as? Int),
            lstm = try #require(architecture["lstmUnits"] as? Int)
        let afterLSTM = dense * (lstm + 1) + 4 * dense + (dense + 1) * 4
        let changed = base.floats.indices.filter { base.floats[$0] != adapted.floats[$0] }
        #expect(changed.count > 2 * dense, "more than batch norm's statistics")
        // The last change is batch norm's running variance, the parameters' end.
        #expect((changed.last ?? 0) - (changed.first ?? 0) < afterLSTM, "nothing before the dense layer")
        let bad = try gesture([
            "personalize", "--model", "m.model", "--recordings", "personal", "--user", "zed", "--unlabeled",
            "--confidence", "1.5",
        ])
        #expect(bad.status != 0 && bad.error.contains("--confidence 1.5 is not a probability from 0 to 1"))
    }

    /// A model with random convolutions: they are fitted again with the person's takes, on the
    /// sessions the model was trained on, found in --base-recordings; without those they are left
    /// out, and the command says so.
    @Test func randomConvolutionsAreFittedAgainWhereTheModelsSessionsAre() throws {
        try gesture(["train", "--classifier", "both", "--epochs", "2", "--augment", "none", "--output", "both.model"])
            .succeeded()
        let personalize = [
            "personalize", "--model", "both.model", "--recordings", "personal", "--user", "zed", "--method",
            "finetune", "--epochs", "2",
        ]
        let alone = try gesture(personalize + ["-o", "zed-alone.model"]).succeeded()
        #expect(
            alone.error.contains(
                "personal holds none of the sessions both.model was trained on: its random convolutions are left "
                    + "out (--base-recordings names where they are)"), "\(alone.error)")
        let fitted = try gesture(personalize + ["--base-recordings", "recordings", "-o", "zed-both.model"]).succeeded()
        #expect(
            fitted.output.contains(
                "fitting the random convolutions again on 108 sessions both.model was trained on (copies included) "
                    + "and those of zed, counted 20 times"), "18 sessions and 5 copies of each: \(fitted.output)")
        let folder = try personalFolder.value().path
        let both = try ModelFileParts(folder.appending("both.model")).header
        #expect(both["randomConvolutions"] != nil)
        #expect(try ModelFileParts(folder.appending("zed-alone.model")).header["randomConvolutions"] == nil)
        let personal = try ModelFileParts(folder.appending("zed-both.model")).header
        #expect(personal["randomConvolutions"] != nil)
        #expect(personal["classNames"] as? [String] == ["chop", "drive", "rest", "shake", "wave"])
        let detected = try gesture([
            "detect", "--model", "zed-both.model", "--fast", "--device", "replay:personal/zed-recordings.csv", "--json",
        ]).succeeded()
        #expect(detected.output.contains("\"gesture\":\"wave\""))
        let export = try gesture(["export", "zed-both.model", "--format", "coreml", "-o", "zed-both.mlmodel"])
            .succeeded()
        #expect(export.error.contains("random convolutions read the last 100 samples"), "\(export.error)")
    }

    @Test func personalisingNeedsOnePersonWithSessions() throws {
        let noUser = try gesture(["personalize", "--model", "m.model", "--recordings", "personal"])
        #expect(noUser.status != 0 && noUser.error.contains("personalize needs the person: one --user"))
        let nobody = try gesture(["personalize", "--model", "m.model", "--recordings", "personal", "--user", "amy"])
        #expect(nobody.status != 0)
        #expect(nobody.error.split(separator: "\n").count == 1, "one line: \(nobody.error)")
        let noModel = try gesture(["personalize", "--model", "none.model", "--recordings", "personal", "--user", "zed"])
        #expect(noModel.status != 0 && noModel.error.contains("none.model"))
    }
}

/// A model file's JSON header and floats, as ModelFile.swift lays them out.
private struct ModelFileParts {
    let header: [String: Any]
    let floats: [UInt32]

    init(_ path: FilePath) throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path.string)))
        let integer = { (offset: Int, size: Int) in
            (0..<size).reduce(0) { value, byte in value | Int(bytes[offset + byte]) << (8 * byte) }
        }
        let magic = "GestureLab model\n".utf8.count
        let jsonCount = integer(magic + 4, 4), jsonStart = magic + 8
        header = try #require(
            try JSONSerialization.jsonObject(with: Data(bytes[jsonStart..<jsonStart + jsonCount])) as? [String: Any])
        let floatCount = integer(jsonStart + jsonCount, 8), floatStart = jsonStart + jsonCount + 8
        floats = (0..<floatCount).map { UInt32(integer(floatStart + 4 * $0, 4)) }
    }
}

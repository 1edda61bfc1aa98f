import Foundation
import GestureTestSupport
import Testing

/// The book's pre-trained model, where ../shared has it (never in the repository).
private let bookModel = Repository.root.deletingLastPathComponent()
    .appendingPathComponent("shared/models/book-GestureClassifier.mlmodel").path

@Suite struct InteropCommandTests {
    private func gesture(_ arguments: [String]) throws -> ProcessResult {
        try runGesture(arguments, in: trained.path)
    }

    @Test func aModelExportedToCoreMLAndImportedBackDetectsAndScoresAsTheOriginal() throws {
        let export = try gesture(["export", "m.model", "--format", "coreml", "-o", "m.mlmodel"]).succeeded()
        #expect(export.output.hasPrefix("wrote m.mlmodel ("))
        // `gesture train`'s defaults read gravity too, which the book's app does not feed.
        #expect(
            export.error
                == "gesture: the book's GestureIt app would need changes to use it: it reads rotX, rotY, rotZ, gravX, "
                + "gravY, gravZ, accelX, accelY, accelZ, not the book's rotX … accelZ (train with --features rotX rotY "
                + "rotZ accelX accelY accelZ for it)\n")
        let imported = try gesture(["import-model", "m.mlmodel", "-o", "back.model"]).succeeded()
        #expect(imported.output.contains("made by GestureLab"))
        #expect(imported.output.contains("classes: chop, drive, rest, shake"))
        let replay = ["--fast", "--device", "replay:unseen/zed-recordings.csv", "--json"]
        // import-model reads the network, not the rejection layers: the imported model does not reject.
        let original = try gesture(["detect", "--model", "m.model", "--reject", "off"] + replay).succeeded()
        let back = try gesture(["detect", "--model", "back.model"] + replay).succeeded()
        let detections = try [original, back].map { result in
            try result.output.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
        }
        #expect(!detections[0].isEmpty && detections[0].count == detections[1].count)
        for (first, second) in zip(detections[0], detections[1]) {
            #expect(first["gesture"] as? String == second["gesture"] as? String)
            #expect(first["time"] as? Double == second["time"] as? Double)
            #expect(abs((first["probability"] as? Double ?? 0) - (second["probability"] as? Double ?? 1)) < 1e-6)
        }
        let scores = try ["m.model", "back.model"].map { model in
            try gesture(["evaluate", model, "--recordings", "unseen", "--confusion", "\(model).svg"]).succeeded()
                .output.split(separator: "\n").filter { !$0.hasPrefix("confusion matrix drawn") }
        }
        #expect(scores[0] == scores[1])
    }

    @Test func theONNXFileIsWrittenWithItsSize() throws {
        let result = try gesture(["export", "m.model", "--format", "onnx", "-o", "m.onnx"]).succeeded()
        let size = try FileManager.default.attributesOfItem(atPath: trained.path.appending("m.onnx").string)[.size]
        #expect(result.output == "wrote m.onnx (\(size as? Int ?? -1) bytes)\n")
    }

    @Test func theCLibraryIsWrittenWithTheFlashAndRAMItNeeds() throws {
        for weights in ["float32", "int8"] {
            let result = try gesture(["export", "m.model", "--format", "c", "--weights", weights, "-o", "c-\(weights)"])
                .succeeded()
            #expect(
                result.output.hasPrefix(
                    "wrote c-\(weights)/gesture_model.h, gesture_model.c, gesture_detect.c and Makefile: "
                        + "\(weights) weights, flash "))
            #expect(result.output.contains("RAM at most "))
            let source = try String(
                contentsOfFile: trained.path.appending("c-\(weights)/gesture_model.c").string, encoding: .utf8)
            #expect(source.contains(weights == "int8" ? "signed char" : "static const float convolution_weights"))
            let header = try String(
                contentsOfFile: trained.path.appending("c-\(weights)/gesture_model.h").string, encoding: .utf8)
            for words in ["\"accelX\"  g: user acceleration along x", "rad/s", "Warm-up:", "Memory:", "Threads:"] {
                #expect(header.contains(words), "the header says \(words)")
            }
        }
    }

    @Test(arguments: [
        (
            ["export", "m.model", "--format", "onnx", "-o", "x.onnx", "--weights", "int8"],
            "--weights is for --format c only"
        ),
        (
            ["export", "m.model", "--format", "c", "-o", "x", "--offset", "3"],
            "the offset 3 must divide the model's window of 20 samples"
        ),
        (
            ["export", "m.model", "--format", "c", "-o", "x", "--offset", "0"],
            "--offset 0 is not a number from 1 to 65536"
        ),
        (
            ["export", "m.model", "--format", "c", "-o", "x", "--threshold", "nan"],
            "--threshold nan is not a probability from 0 to 1"
        ),
        (["export", "m.model", "--format", "c", "-o", "x", "--threshold", "inf"], "--threshold inf is not a"),
        (["export", "m.model", "--format", "c", "-o", "x", "--threshold", "1.5"], "--threshold 1.5 is not a"),
        (
            ["export", "m.model", "--format", "c", "-o", "x", "--cooldown=-1"],
            "--cooldown -1 is not a number of seconds from 0 to 3600"
        ),
        (["export", "m.model", "--format", "c", "-o", "x", "--cooldown", "nan"], "--cooldown nan is not a"),
        (
            ["export", "m.model", "--format", "c", "-o", "x", "--averaging", "0"],
            "--averaging 0 is not a number from 1 to 1000"
        ),
        (
            [
                "detect", "--model", "m.model", "--fast", "--device", "replay:unseen/zed-recordings.csv", "--offset",
                "0",
            ],
            "--offset 0 is not a number from 1 to 65536"
        ),
        (
            ["export", "m.model", "--format", "onnx", "-o", "x.onnx", "--book-labels"],
            "--book-labels is for --format coreml only"
        ),
        (
            ["export", "m.model", "--format", "onnx", "-o", "x.onnx", "--profile", "mpu6050"],
            "--profile is for --format c only"
        ),
        (["export", "nothing.model", "--format", "coreml", "-o", "x.mlmodel"], "nothing.model"),
        (["import-model", "m.model", "-o", "x.model"], "m.model: not a Core ML model file"),
        (
            ["import-model", "m.mlmodel", "--rate=-1", "-o", "x.model"],
            "--rate -1 is not a number of Hz from 0.1 to 100000"
        ),
    ])
    func badInputIsOneLineAndExitCodeTwo(arguments: [String], message: String) throws {
        try gesture(["export", "m.model", "--format", "coreml", "-o", "m.mlmodel"]).succeeded()
        let result = try gesture(arguments)
        #expect(result.status == 2)
        #expect(result.error.contains(message), "\(result.error)")
        #expect(result.error.split(separator: "\n").count == 1)
    }

    /// An optional check: the book's own model, read from ../shared, runs live on a GestureLab recording.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: bookModel), "needs ../shared/models"))
    func theBooksModelImportsAndDetectsOnAReplayedRecording() throws {
        let missingRate = try gesture(["import-model", bookModel, "-o", "book.model"])
        #expect(missingRate.status == 2 && missingRate.error.contains("--rate 25"))
        let imported = try gesture(["import-model", bookModel, "--rate", "25", "-o", "book.model"]).succeeded()
        print(imported.output)
        #expect(imported.output.contains("inputs: features [1, 20, 6] double, hiddenIn [200] double (optional)"))
        #expect(imported.output.contains("classes: chop_it → chop, drive_it → drive, rest_it → rest, shake_it → shake"))
        let detected = try gesture([
            "detect", "--model", "book.model", "--fast", "--device", "replay:unseen/zed-recordings.csv", "--evaluate",
        ]).succeeded()
        print(detected.output)
        #expect(detected.output.contains("4 gestures:"))
    }
}

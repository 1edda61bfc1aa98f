import Foundation
import GestureTestSupport
import Testing

/// A folder with two people's chops and a model trained on them, for commands that need both.
private let folder = SharedFixture {
    let folder = try TemporaryFolder()
    for user in ["ann", "bob"] {
        try runGesture(
            [
                "record", "--device", "sim", "--user", user, "--gesture", "chop", "--takes", "2", "--rate", "25",
                "--fast", "--quiet", "--keep", "--append",
            ], in: folder.path
        ).succeeded()
    }
    try runGesture(["train", "--epochs", "1", "--output", "m.model"], in: folder.path).succeeded()
    return folder
}

/// Every number a command takes is checked before it is used: a value no command can use (nan,
/// infinity, a rate below a reading every ten seconds, a count past its bound) is a one-line
/// usage error naming the option, before anything is recorded, trained or written.
@Suite struct NumericOptionTests {
    /// Each command's numeric options, `V` where the value goes, with the words that name it in the error.
    static let doubles: [([String], String)] = [
        (["monitor", "--device", "sim", "--fast", "--rate", "V"], "rate"),
        (["monitor", "--device", "sim", "--fast", "--seconds", "V"], "--seconds"),
        (
            ["record", "--device", "sim", "--user", "cy", "--gesture", "chop", "--fast", "--quiet", "--take", "V"],
            "take"
        ),
        (
            ["record", "--device", "sim", "--user", "cy", "--gesture", "chop", "--fast", "--quiet", "--rest", "V"],
            "rest"
        ),
        (
            ["record", "--device", "sim", "--user", "cy", "--gesture", "chop", "--fast", "--quiet", "--rate", "V"],
            "rate"
        ),
        (
            ["record", "--device", "sim", "--user", "cy", "--continuous", "--fast", "--quiet", "--seconds", "V"],
            "seconds"
        ),
        (["stats", "--rate", "V"], "--rate"),
        (["clean", "--window", "V"], "--window"),
        (["plot", "-o", "p.svg", "--width", "V"], "--width"),
        (["split", "--by", "user", "-o", "s.txt", "--validation", "V"], "--validation"),
        (["split", "--by", "user", "-o", "s.txt", "--test", "V"], "--test"),
        (["train", "--epochs", "1", "--output", "x.model", "--learning-rate", "V"], "--learning-rate"),
        (["train", "--epochs", "1", "--output", "x.model", "--motion-rejection", "V"], "--motion-rejection"),
        (["train", "--epochs", "1", "--output", "x.model", "--label-smoothing", "V"], "--label-smoothing"),
        (["train", "--epochs", "1", "--output", "x.model", "--augment", "rotate", "--rotation", "V"], "--rotation"),
        (["train", "--epochs", "1", "--output", "x.model", "--augment", "warp", "--warp", "V"], "--warp"),
        (["train", "--epochs", "1", "--output", "x.model", "--augment", "scale", "--scale", "V"], "--scale"),
        (
            ["personalize", "--model", "m.model", "--user", "ann", "-o", "x.model", "--learning-rate", "V"],
            "--learning-rate"
        ),
        (["play", "--model", "m.model", "--device", "sim", "--fast", "--threshold", "V"], "--threshold"),
        (["play", "--model", "m.model", "--device", "sim", "--fast", "--cooldown", "V"], "--cooldown"),
        (["play", "--model", "m.model", "--device", "sim", "--fast", "--timeout", "V"], "--timeout"),
        (["play", "--model", "m.model", "--device", "sim", "--fast", "--mistakes", "V"], "--mistakes"),
        (["play", "--model", "m.model", "--device", "sim", "--fast", "--rate", "V"], "rate"),
        (["export", "m.model", "--format", "c", "-o", "c", "--threshold", "V"], "--threshold"),
        (["export", "m.model", "--format", "c", "-o", "c", "--cooldown", "V"], "--cooldown"),
        (["crossval", "--leave-gesture-out", "--epochs", "1", "--threshold", "V"], "--threshold"),
        (["crossval", "--leave-gesture-out", "--epochs", "1", "--cooldown", "V"], "--cooldown"),
        (["import-model", "x.mlmodel", "-o", "x.model", "--rate", "V"], "--rate"),
        (["import", "x.csv", "--map", "user=u", "--sample-rate", "V"], "--sample-rate"),
        (["detect", "--model", "m.model", "--device", "sim", "--fast", "--duration", "V"], "--duration"),
        (["relabel", "ID", "--from", "V", "--to", "1", "--as", "wave"], "--from"),
        (["trim", "ID", "--from", "0", "--to", "V"], "--to"),
    ]

    static let counts: [([String], String)] = [
        (
            ["record", "--device", "sim", "--user", "cy", "--gesture", "chop", "--fast", "--quiet", "--takes", "V"],
            "takes"
        ),
        (["train", "--output", "x.model", "--window", "V"], "--window"),
        (["train", "--output", "x.model", "--epochs", "V"], "--epochs"),
        (["train", "--output", "x.model", "--batch", "V"], "--batch"),
        (["train", "--output", "x.model", "--conv-filters", "V"], "--conv-filters"),
        (["train", "--output", "x.model", "--lstm-units", "V"], "--lstm-units"),
        (["train", "--output", "x.model", "--dense-units", "V"], "--dense-units"),
        (["train", "--output", "x.model", "--overfit", "V"], "--overfit"),
        (
            ["train", "--output", "x.model", "--architecture", "temporal", "--temporal-filters", "V"],
            "--temporal-filters"
        ),
        (
            ["train", "--output", "x.model", "--architecture", "temporal", "--temporal-kernel", "V"],
            "--temporal-kernel"
        ),
        (
            ["train", "--output", "x.model", "--architecture", "temporal", "--temporal-layers", "V"],
            "--temporal-layers"
        ),
        (["plot", "-o", "p.svg", "--panels", "V"], "--panels"),
        (["crossval", "--epochs", "1", "--runs", "V"], "--runs"),
        (["crossval", "--leave-gesture-out", "--epochs", "1", "--averaging", "V"], "--averaging"),
        (["personalize", "--model", "m.model", "--user", "ann", "-o", "x.model", "--neighbours", "V"], "--neighbours"),
        (["personalize", "--model", "m.model", "--user", "ann", "-o", "x.model", "--prototypes", "V"], "--prototypes"),
        (
            [
                "personalize", "--model", "m.model", "--user", "ann", "-o", "x.model", "--method", "finetune",
                "--epochs", "V",
            ], "--epochs"
        ),
        (["play", "--model", "m.model", "--device", "sim", "--fast", "--rounds", "V"], "--rounds"),
        (
            ["play", "--model", "m.model", "--device", "sim", "--fast", "--user", "ann", "--personalize", "V"],
            "--personalize"
        ),
        (["play", "--model", "m.model", "--device", "sim", "--fast", "--averaging", "V"], "--averaging"),
        (["play", "--model", "m.model", "--device", "sim", "--fast", "--offset", "V"], "offset"),
        (["export", "m.model", "--format", "c", "-o", "c", "--averaging", "V"], "--averaging"),
        (["export", "m.model", "--format", "c", "-o", "c", "--offset", "V"], "offset"),
    ]

    private func expectRefused(_ arguments: [String], value: String, naming name: String) throws {
        let folder = try folder.value()
        let id = try runGesture(["sessions", "--json"], in: folder.path).succeeded().output.prefix { $0 != "\n" }
            .split(separator: "\"")[3]
        let filled = arguments.map { $0 == "V" ? value : $0 == "ID" ? String(id) : $0 }
        let before = try recordingLines(in: folder.recordings)
        let result = try runGesture(filled, in: folder.path)
        #expect(result.status == 2, "\(filled): \(result.error)")
        #expect(result.error.hasPrefix("gesture: ") && result.error.contains(name), "\(filled): \(result.error)")
        #expect(result.error.split(separator: "\n").count == 1, "\(filled): \(result.error)")
        #expect(try recordingLines(in: folder.recordings) == before)
        #expect(!FileManager.default.fileExists(atPath: folder.path.appending("x.model").string))
    }

    @Test(arguments: doubles)
    func notANumberIsRefused(arguments: [String], name: String) throws {
        try expectRefused(arguments, value: "nan", naming: name)
    }

    /// Infinity is `monitor --seconds`'s and `detect --duration`'s default, "until Ctrl-C"; everywhere
    /// else it is refused.
    @Test(arguments: doubles.filter { !["--seconds", "--duration"].contains($0.1) })
    func infinityIsRefused(arguments: [String], name: String) throws {
        try expectRefused(arguments, value: "inf", naming: name)
    }

    @Test(arguments: counts)
    func theLargestIntegerIsRefused(arguments: [String], name: String) throws {
        try expectRefused(arguments, value: "\(Int.max)", naming: name)
    }

    /// Values that once crashed or were taken: a rate so low its period is infinite, a page too narrow to draw.
    @Test(arguments: [
        (["monitor", "--device", "sim", "--fast", "--rate", "1e-320"], "below 0.1 Hz"),
        (["stats", "--rate", "1e-320"], "is not a rate of at least 0.1 Hz"),
        (["plot", "-o", "p.svg", "--width", "0"], "--width 0 is not a number of pixels from 300 to 20000"),
        (["clean", "--window", "1e300"], "--window 1e+300 is not a number of seconds from 0 to 3600"),
        (
            ["export", "m.model", "--format", "c", "-o", "c", "--cooldown", "1e300"],
            "--cooldown 1e+300 is not a number"
        ),
        (
            ["record", "--device", "sim", "--user", "cy", "--gesture", "chop", "--seconds", "5"],
            "--seconds is for --continuous"
        ),
    ])
    func valuesThatOnceCrashedAreRefused(arguments: [String], message: String) throws {
        try expectRefused(arguments, value: "", naming: message)
    }
}

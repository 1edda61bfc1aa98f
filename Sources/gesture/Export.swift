import ArgumentParser
import Foundation
import GestureCommandLine
import GestureCore
import GestureInterop
import GestureLearning
import GestureLive
import GestureSensors
import GestureStore

struct Export: AsyncParsableCommand, NumberChecking {
    static let configuration = CommandConfiguration(
        abstract: "Write a model for another runtime: Core ML (the book's GestureIt app), ONNX, or a C library.",
        discussion: """
            coreml writes an .mlmodel with the interface of Turi Create's activity classifier; onnx writes \
            one streaming step as an ONNX graph; c writes gesture_model.h and gesture_model.c into a folder, \
            C99 with no dependencies, for microcontrollers: raw readings in (the profile's axes, GestureLab's \
            attitude filter and features), detections out; with gesture_detect.c, which reads readings as \
            CSV on standard input and prints detections, and a Makefile that builds it. Each carries the \
            model's rejection of unknown motion: Core ML as the output rejectionMargin, ONNX as \
            rejection_margin and unknown, C as gesture_is_unknown, which its detector applies unless \
            exported with --reject off. A model trained with --motion-rejection has a third state to \
            feed back, Core ML's motionIn/motionOut and ONNX's motion_in/motion_out; one trained with \
            --classifier both has its random convolutions' last samples to feed back too, Core ML's \
            recentIn/recentCountIn and ONNX's recent_in/recent_count_in.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case coreml, onnx, c
    }

    @Argument(help: "The model file `gesture train` wrote.") var model: String
    @Option(help: "coreml, onnx or c.") var format: Format
    @Option(name: .shortAndLong, help: "The file to write (a folder for c).") var output: String
    @Flag(help: "coreml: name the classes as the book's GestureIt app does (shake becomes shake_it).")
    var bookLabels = false
    @Option(help: "c: float32, or int8 (a byte per weight, a scale per row: a quarter of the flash).")
    var weights: CLibrary.Weights?
    @Option(
        help: """
            c: the device profile of the sensor the readings come from, by file name (mpu6050 for \
            devices/10-mpu6050.profile); default: GestureLab's axes, at the model's rate.
            """)
    var profile: String?
    @OptionGroup var profiles: ProfileOptions
    @OptionGroup(title: "Detection (c)") var detection: DetectionSettingsOptions
    @Option(help: "c: off: the detector reports every window's class, as `gesture detect --reject off` does.")
    var reject = Switch.on

    /// The detection settings are the C library's; the other formats leave them out.
    func checkNumbers() throws {
        if format == .c { _ = try detection.settings }
    }

    func run() async throws {
        try checkNumbers()
        let loaded = try loadModel(model)
        if bookLabels, format != .coreml {
            throw Failure.usage("--book-labels is for --format coreml only")
        }
        if weights != nil, format != .c {
            throw Failure.usage("--weights is for --format c only")
        }
        if profile != nil, format != .c {
            throw Failure.usage("--profile is for --format c only")
        }
        if reject == .off, format != .c {
            throw Failure.usage("--reject is for --format c only: the other formats give the rejection as outputs")
        }
        switch format {
        case .coreml:
            let export = try exporting { () throws(InteropError) in
                try CoreMLExport(model: loaded, bookLabels: bookLabels)
            }
            try writeFile(export.serialized())
            for difference in export.differencesFromTheBook {
                Terminal.note("the book's GestureIt app would need changes to use it: \(difference)")
            }
        case .onnx:
            try writeFile(try exporting { () throws(InteropError) in try ONNXExport(model: loaded) }.serialized())
        case .c: try writeLibrary(loaded)
        }
    }

    private func writeLibrary(_ model: GestureModel) throws {
        var settings = try detection.settings
        settings.reject = reject == .on
        let board = try profile.map { name in CLibrary.Board(try profiles.profile(named: name), model: model) }
        let library = try exporting { () throws(InteropError) in
            try CLibrary(model: model, weights: weights ?? .float32, settings: settings, board: board)
        }
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        } catch {
            throw Failure.failed("cannot make the folder \(output): \(fileErrorReason(error))")
        }
        try write(library.header, to: "\(output)/\(CLibrary.headerName)")
        try write(library.source, to: "\(output)/\(CLibrary.sourceName)")
        var written = [CLibrary.headerName, CLibrary.sourceName]
        if let program = library.detectProgram {
            try write(program, to: "\(output)/\(CLibrary.detectProgramName)")
            try write(library.makefile, to: "\(output)/\(CLibrary.makefileName)")
            written += [CLibrary.detectProgramName, CLibrary.makefileName]
        } else {
            Terminal.warn("the model reads features GestureLab does not compute: the library takes features only")
        }
        Terminal.say(
            "wrote \(output)/\(written.dropLast().joined(separator: ", ")) and \(written.last!): "
                + "\(library.weights.rawValue) weights, flash \(library.flashBytes.counting("byte")), "
                + "RAM at most \(library.ramBytes.counting("byte"))")
    }

    /// The export, or a usage error naming the model.
    private func exporting<T>(_ body: () throws(InteropError) -> T) throws -> T {
        do throws(InteropError) {
            return try body()
        } catch {
            throw Failure.usage("\(model): \(error)")
        }
    }

    private func writeFile(_ bytes: [UInt8]) throws {
        try write(bytes, to: output)
        Terminal.say("wrote \(output) (\(bytes.count.counting("byte")))")
    }
}

struct ImportModel: AsyncParsableCommand, NumberChecking {
    static let configuration = CommandConfiguration(
        commandName: "import-model",
        abstract: "Read a Core ML activity classifier (the book's, or one `gesture export` wrote) into a model file.",
        discussion: """
            The Core ML model must be shaped as Turi Create's activity classifier. Class names ending in _it \
            (the book's) lose it: shake_it becomes shake. The model then works with evaluate, detect and play.
            """)

    @Argument(help: "The .mlmodel file.") var coreML: String
    @Option(help: "The rate its features were sampled at, in Hz, when the file does not say (the book's: 25).")
    var rate: Double?
    @Option(name: .shortAndLong, help: "The model file to write.") var output: String

    func checkNumbers() throws {
        if let rate { try Failure.check("--rate", rate, in: 0.1...100_000, being: "a number of Hz") }
    }

    func run() async throws {
        try checkNumbers()
        let bytes: [UInt8]
        do {
            bytes = try readFile(coreML)
        } catch {
            throw Failure.usage("cannot read \(coreML): \(error.reason)")
        }
        let imported: CoreMLImport
        do {
            imported = try CoreMLImport(serialized: bytes, rate: rate)
        } catch {
            throw Failure.usage("\(coreML): \(error)")
        }
        for line in imported.interface { Terminal.say(line) }
        try write(imported.model.serialized(), to: output)
        Terminal.say("wrote \(output)")
    }
}

extension CLibrary.Weights: ExpressibleByArgument {}

extension CLibrary.Board {
    /// The sensor a profile describes, at its rate, else the model's.
    init(_ profile: DeviceProfile, model: GestureModel) {
        let file = String(profile.file.split(separator: "/").last ?? "")
        self.init(
            name: "\(file), \(profile.name)", mountMatrix: profile.mountMatrix, axes: profile.axes,
            accelerationScale: profile.accelerationScale, rotationScale: profile.rotationScale,
            rate: profile.rate ?? model.samplingRate)
    }
}

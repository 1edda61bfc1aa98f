import ArgumentParser
import GestureCommandLine
import GestureInterop
import GestureLearning

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a model for another runtime: Core ML (the book's GestureIt app), ONNX, or a C library.",
        discussion: """
            coreml writes an .mlmodel with the interface of Turi Create's activity classifier; onnx writes \
            one streaming step as an ONNX graph; c writes gesture_model.h and gesture_model.c into a folder, \
            C99 with no dependencies, for microcontrollers.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case coreml, onnx, c
    }

    @Argument(help: "The model file `gesture train` wrote.") var model: String
    @Option(help: "coreml, onnx or c.") var format: Format
    @Option(name: .shortAndLong, help: "The file to write (a folder for c).") var output: String

    func run() async throws {
        let loaded: GestureModel
        do {
            loaded = try GestureModel(contentsOf: model)
        } catch {
            throw Failure.usage("\(error)")
        }
        switch format {
        case .coreml: throw Failure.usage("--format coreml is not written yet")
        case .onnx: throw Failure.usage("--format onnx is not written yet")
        case .c: throw Failure.usage("--format c is not written yet")
        }
    }

    private func writeFile(_ bytes: [UInt8]) throws {
        try write(bytes, to: output)
        Terminal.say("wrote \(output) (\(bytes.count.counting("byte")))")
    }
}

import ArgumentParser
import GestureCommandLine

/// `gesture detect` runs `gesture-detect` from beside this executable, so that the detector's
/// process holds what detection needs and not the catalog, analysis and training.
struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect gestures in live sensor data with a trained model.",
        discussion: "Runs gesture-detect, which is built beside gesture; `gesture detect --help` lists its options.")

    @Argument(parsing: .captureForPassthrough, help: "gesture-detect's options.")
    var arguments: [String] = []

    func run() throws {
        try Self.runDetector(arguments)
    }

    static func runDetector(_ arguments: [String]) throws -> Never {
        let detector = siblingExecutable("gesture-detect")
        let reason = replaceProcess(with: detector, arguments: [detector] + arguments)
        throw Failure.failed("cannot run \(detector): \(reason)")
    }
}

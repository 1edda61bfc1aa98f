import ArgumentParser
import GestureCommandLine
import Glibc

/// `gesture detect` runs `gesture-detect` from beside this executable, so that the detector's
/// process holds what detection needs and not the catalog, analysis and training.
struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect gestures in live sensor data with a trained model.",
        discussion: "Runs gesture-detect, which is built beside gesture; `gesture detect --help` lists its options.")

    @Argument(parsing: .captureForPassthrough, help: "gesture-detect's options.")
    var arguments: [String] = []

    func run() {
        Self.runDetector(arguments)
    }

    /// Becomes gesture-detect with `arguments`, or says why it cannot and exits.
    static func runDetector(_ arguments: [String]) -> Never {
        let detector = siblingExecutable("gesture-detect")
        let reason = replaceProcess(with: detector, arguments: [detector] + arguments)
        Terminal.error("cannot run \(detector): \(reason)")
        Glibc.exit(1)
    }
}

import Foundation
import GestureInterop

extension CLibrary {
    /// Writes its two files and, as `main.c`, `program` into `folder`.
    public func write(into folder: String, main program: String = "") throws(CTargetError) {
        let files = [Self.headerName: header, Self.sourceName: source, "main.c": program]
        for (name, text) in files {
            try CTargetError.wrap { try text.write(toFile: "\(folder)/\(name)", atomically: true, encoding: .utf8) }
        }
    }

    /// Makes `PREDICTIONS` streamed predictions.
    public static let predictionsProgram = """
        #include "gesture_model.h"

        int main(void) {
            static float window[GESTURE_WINDOW * GESTURE_FEATURES];
            float probabilities[GESTURE_CLASSES] = {0};
            gesture_state state;
            int k;
            gesture_state_reset(&state);
            for (k = 0; k < PREDICTIONS; k++) gesture_predict(window, &state, probabilities);
            return probabilities[0] >= 0 ? 0 : 1;
        }
        """

    /// Takes `READINGS` readings of a turning, accelerating device through the front end.
    public static let readingsProgram = """
        #include "gesture_model.h"

        int main(void) {
            static gesture_board board;
            float features[GESTURE_FEATURES];
            int k, taken = 0;
            if (!gesture_board_init(&board, GESTURE_RATE)) return 1;
            for (k = 0; k < READINGS; k++) {
                double acceleration[3] = {0.01 * k, -0.02, 0.98}, rotation_rate[3] = {0.1, -0.2 + 0.01 * k, 0.05};
                taken += gesture_board_features(&board, 0.04 * k, acceleration, rotation_rate, features);
            }
            return taken == READINGS ? 0 : 1;
        }
        """
}

/// The library alone, compiled for a target: its code and constants (flash), its data and bss (RAM,
/// none but the caller's), and the stack of a reading that makes a prediction, by the compiler's count.
public struct LibrarySections: Sendable {
    public let text: Int
    public let ram: Int
    public let stack: Int
}

extension CTarget {
    /// The sections of the library in `folder` (written by `CLibrary.write(into:)`) built for this target.
    /// The stack: `gesture_board_add`, then the deeper of the detector (`gesture_detector_add_features`,
    /// the deeper of `gesture_predict` and `gesture_is_unknown`, the dense layer and the largest function
    /// they call) and the front end (all its functions at once).
    public func sections(ofLibraryIn folder: String) throws(CTargetError) -> LibrarySections {
        try compile([CLibrary.sourceName], in: folder, object: true)
        let (text, ram) = try sections(of: "program", in: folder)
        // "file:line:column:function bytes static", a line each.
        let usage = try CTargetError.wrap { try String(contentsOfFile: "\(folder)/program.su", encoding: .utf8) }
            .split(separator: "\n").map { $0.split(whereSeparator: \.isWhitespace) }
        var stack = Dictionary(
            usage.compactMap { line in
                line.first?.split(separator: ":").last.map { (String($0), Int(line.dropFirst().first ?? "") ?? 0) }
            }, uniquingKeysWith: max)
        let chain = ["gesture_board_add", "gesture_detector_add_features", "gesture_predict"].compactMap {
            stack.removeValue(forKey: $0)
        }
        guard chain.count == 3 else { throw CTargetError("\(description): program.su lacks the detector's calls") }
        let predicting = ["product", "product_int8", "softmax", "sigmoid"].compactMap { stack.removeValue(forKey: $0) }
        // Each called from the one before it, if not inlined: gesture_predict or gesture_is_unknown, the dense layer.
        let classifying = Swift.max(chain[2], stack.removeValue(forKey: "gesture_is_unknown") ?? 0)
        let detector =
            chain[1] + classifying + (stack.removeValue(forKey: "dense_embedding") ?? 0) + (predicting.max() ?? 0)
        let frontEnd = stack.values.reduce(0, +)
        return LibrarySections(text: text, ram: ram, stack: chain[0] + max(detector, frontEnd))
    }

    /// The instructions one step of `program` executes with the library in `folder`, `macro` saying how
    /// many steps it takes: a program taking three steps against one taking one (a first reading only
    /// levels the attitude).
    public func instructionsPerStep(
        ofLibraryIn folder: String, running program: String, macro: String
    ) throws(CTargetError) -> Int {
        try CTargetError.wrap { try program.write(toFile: "\(folder)/main.c", atomically: true, encoding: .utf8) }
        var counts: [Int] = []
        for steps in [1, 3] {
            let built = try compile(["-D\(macro)=\(steps)", "main.c", CLibrary.sourceName], in: folder)
            counts.append(try instructions(of: built, in: folder))
        }
        return (counts[1] - counts[0]) / 2
    }
}

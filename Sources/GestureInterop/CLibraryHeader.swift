import GestureCore

/// The opening comment of `gesture_model.h`: what a maker needs to feed the library and to fit it
/// on a board, without GestureLab's documentation.
extension CLibrary {
    /// A whole program that uses the library on raw readings: `read_sensor` is the caller's. The
    /// tests compile it.
    public static let usageExample = """
        #include "gesture_model.h"
        #include <stdio.h>

        // Yours: the next reading on the sensor's axes, acceleration in g (gravity included) and rotation
        // rate in rad/s, and its time in seconds; 0 at the end.
        int read_sensor(double *time, double acceleration[3], double rotation_rate[3]);

        static gesture_board board; // static: it is large for a stack

        int main(void) {
            double time, acceleration[3], rotation_rate[3];
            gesture_prediction prediction;
            if (!gesture_board_init(&board, GESTURE_BOARD_RATE)) return 1; // start with the device at rest
            while (read_sensor(&time, acceleration, rotation_rate))
                if (gesture_board_add(&board, time, acceleration, rotation_rate, &prediction) && prediction.detected)
                    printf("%.2f %s %.3f\\n", prediction.time, gesture_class_names[prediction.gesture],
                           prediction.probability);
            return 0;
        }
        """

    /// The same for a model of features GestureLab does not compute: `read_features` is the caller's.
    public static let featuresExample = """
        #include "gesture_model.h"
        #include <stdio.h>

        // Yours: the next sample's features, in the order above, and its time in seconds; 0 at the end.
        int read_features(float *features, double *time);

        static gesture_detector detector; // static: it is large for a stack

        int main(void) {
            float features[GESTURE_FEATURES];
            double time;
            gesture_prediction prediction;
            gesture_detector_init(&detector); // zero state: start with the device at rest
            while (read_features(features, &time))
                if (gesture_detector_add_features(&detector, features, time, &prediction) && prediction.detected)
                    printf("%.2f %s %.3f\\n", prediction.time, gesture_class_names[prediction.gesture],
                           prediction.probability);
            return 0;
        }
        """

    /// The example the header shows: raw readings when the library computes the model's features.
    public var example: String { featureCodes == nil ? Self.featuresExample : Self.usageExample }

    var openingComment: String {
        let features = model.featureNames.enumerated().map { index, name in
            "     \(index)  \(name.cLiteral)  \(FeatureMeaning(name: name).text)"
        }
        let example = example.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.isEmpty ? "" : "     \($0)"
        }
        return
            (["/* \(summary)", ""] + inputSection + features + [""] + detectionSection + [""] + rejectionSection
            + [""] + memorySection
            + ["", "   Usage, built with `cc -std=c99 main.c gesture_model.c -lm`:", ""] + example + ["*/"])
            .joined(separator: "\n")
    }

    private var summary: String {
        let classes = model.classNames.map(\.cLiteral).joined(separator: ", ")
        return "A GestureLab \(gestureLabVersion) model as C99 with no dependency but libm, \(weights.rawValue) "
            + "weights.\n   It tells apart \(classes)."
    }

    private var inputSection: [String] {
        let rate = model.samplingRate.shortText
        return [
            "   Input: the model takes a sample of GESTURE_FEATURES features every 1/\(rate) s (GESTURE_RATE \(rate) Hz)."
        ] + (featureCodes == nil ? featuresInput : readingsInput) + [
            "   GestureLab's axes are right-handed; a device lying still, face up, reads acceleration (0, 0, +1 g).",
            "   The features, in order:",
        ]
    }

    private var readingsInput: [String] {
        [
            "   gesture_board_add takes raw readings as the sensor gives them: acceleration in g, gravity",
            "   included, and rotation rate in rad/s, on the sensor's axes, with their time in seconds, steadily",
            "   at GESTURE_BOARD_RATE \(board.rate.shortText) Hz or another whole multiple of GESTURE_RATE (it takes every n-th",
            "   reading, as `gesture detect` does; it fills no gaps).",
        ] + axesSentence + [
            "   It runs GestureLab's attitude filter on every reading (Sources/GestureMotion/AttitudeFilter.swift)",
            "   and computes the features, in double, as `gesture record` and `gesture detect` do. For data",
            "   already fused, gesture_detector_add_features takes the features themselves. On Linux, gesture_detect.c",
            "   (built by the Makefile beside it) feeds it from an IIO or input device, or CSV on standard input.",
        ]
    }

    private var axesSentence: [String] {
        guard board.name != "none" else {
            return [
                "   Its axes must be GestureLab's (exported without --profile; `gesture export --profile NAME` maps others)."
            ]
        }
        return [
            "   It maps the axes as the profile \(board.name.cLiteral) says (mount matrix, then axes, then scales)."
        ]
    }

    private var featuresInput: [String] {
        [
            "   The model reads features GestureLab does not compute: the caller computes them, in this order,",
            "   and feeds them to gesture_detector_add_features.",
        ]
    }

    private var detectionSection: [String] {
        let window = model.windowing.window, chunk = model.windowing.windowsPerChunk
        let warm = 2 * window - settings.offset, seconds = (Double(warm) / model.samplingRate).shortText
        return [
            "   Warm-up: the network is an LSTM that carries state from one window to the next (GestureLab",
            "   trained it on runs of \(chunk) windows of \(window) samples from zero state, at the start of a",
            "   recording). gesture_board_init (or gesture_detector_init) starts every state at zero, as",
            "   `gesture detect` does, and the attitude level from the first reading: start it with the",
            "   device at rest and feed every sample from then on. The first prediction comes after \(window)",
            "   samples; only after \(warm) samples (\(seconds) s) has each of the \(slots) window slots seen a",
            "   window. A state started in the middle of a gesture can misjudge it.",
        ]
    }

    private var memorySection: [String] {
        [
            "   Memory: \(flashBytes) bytes of constants (flash); a gesture_detector takes at most \(detectorBytes)",
            "   bytes (a gesture_board \(boardBytes)) and gesture_board_add about \(stackBytes) bytes of stack.",
            "   Nothing is allocated. Threads: no state but the caller's; a board, detector or gesture_state",
            "   belongs to one thread at a time, and separate ones run in parallel.",
        ]
    }
}

/// What a feature is, in words and units, for a maker computing it.
private struct FeatureMeaning {
    let name: String

    var text: String {
        guard let feature = try? Feature(named: name) else {
            return "as the data the model was trained on had it (not a GestureLab feature)"
        }
        return "\(feature.unit): \(meaning)"
    }

    private var axis: String { String(name.suffix(1)).lowercased() }

    private var meaning: String {
        switch name {
        case "roll", "pitch", "yaw": "attitude, aerospace Z-Y-X angle; yaw starts at 0 and drifts"
        case "rotX", "rotY", "rotZ": "rotation rate about the device's \(axis) axis, right-handed (the gyroscope's)"
        case "gravX", "gravY", "gravZ": "gravity along \(axis), as the attitude filter estimates it"
        case "accelX", "accelY", "accelZ": "user acceleration along \(axis): the reading minus gravity"
        case "rawAccelX", "rawAccelY", "rawAccelZ": "the accelerometer's reading along \(axis), gravity included"
        case "rawGyroX", "rawGyroY", "rawGyroZ": "the gyroscope's reading about \(axis)"
        case "accelMagnitude": "the size of the user acceleration"
        case "rotMagnitude": "the size of the rotation rate"
        case "accelVertical": "user acceleration along gravity"
        case "rotVertical": "rotation rate about gravity's direction"
        case "accelHorizontal": "the size of the user acceleration across gravity"
        default: "the size of the rotation rate across gravity"
        }
    }
}

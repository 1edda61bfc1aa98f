import GestureLearning

/// A model's random convolutions in C: each slot's last `history` samples in `gesture_state`, and
/// their class probabilities, which `gesture_predict` averages with the network's probabilities, in the
/// float arithmetic and order of `RandomConvolutions` and `RidgeClassifier`.
extension CLibrary {
    var randomConvolutions: RandomConvolutionClassifier? { model.randomConvolutions }

    static func check(_ convolutions: RandomConvolutionClassifier?, window: Int) throws(InteropError) {
        guard let history = convolutions?.convolutions.history, history < window else { return }
        throw InteropError(
            "the random convolutions look back \(history) samples, less than the window of \(window): C cannot carry them"
        )
    }

    /// Bytes of its constants: normalization, kernels, biases and the ridge's.
    var convolutionBytes: Int {
        guard let classifier = randomConvolutions else { return 0 }
        let kernels = classifier.convolutions.kernels, outputs = classifier.convolutions.outputCount
        let channels = kernels.map(\.channels.count).reduce(0, +)
        return 3 * kernels.count + 4 * (3 * kernels.count + 2 + channels)
            + 4 * (2 * model.featureNames.count + 3 * outputs + (outputs + 1) * model.classNames.count)
    }

    /// Bytes of its state in one slot: the samples and their count.
    var convolutionStateBytes: Int {
        randomConvolutions.map { 4 * ($0.convolutions.history * model.featureNames.count + 1) } ?? 0
    }

    /// Bytes of its arrays on the stack: the summed channels, the outputs, the features and scores.
    var convolutionStackBytes: Int {
        randomConvolutions.map {
            4 * (2 * $0.convolutions.history + $0.convolutions.outputCount + model.classNames.count)
        }
            ?? 0
    }

    var convolutionDefine: String {
        randomConvolutions.map { "\n#define GESTURE_HISTORY \($0.convolutions.history)" } ?? ""
    }

    var convolutionStateFields: String {
        guard randomConvolutions != nil else { return "" }
        return """

                float recent[GESTURE_HISTORY * GESTURE_FEATURES]; /* the last samples, normalized, oldest first */
                int recent_count;
            """
    }

    var convolutionAverage: String {
        guard randomConvolutions != nil else { return "" }
        return """
            {
                    float scores[GESTURE_CLASSES];
                    convolution_scores(window, state, scores);
                    for (i = 0; i < GESTURE_CLASSES; i++) probabilities[i] = (probabilities[i] + scores[i]) / 2;
                }
            """
    }

    /// The ridge's scores made probabilities: times its inverse temperature, then the softmax.
    private var calibration: String {
        guard let scale = randomConvolutions?.ridge.inverseTemperature else { return "" }
        return """

                    for (c = 0; c < GESTURE_CLASSES; c++) scores[c] *= \(scale.cLiteral);
                    softmax(scores);
            """
    }

    var convolutionSource: String {
        guard let classifier = randomConvolutions else { return "" }
        let kernels = classifier.convolutions.kernels, ridge = classifier.ridge, classes = model.classNames.count
        let floats = { (values: [Float]) in values.map(\.cLiteral).joined(separator: ",") }
        let integers = { (values: [Int]) in values.map(String.init).joined(separator: ",") }
        let starts = { (counts: [Int]) in integers(counts.reduce(into: [0]) { $0.append($0.last! + $1) }) }
        let classMajor = (0..<classes).flatMap { label in
            stride(from: label, to: ridge.weights.count, by: classes).map { ridge.weights[$0] }
        }
        return """

            #define KERNELS \(kernels.count)
            #define CONVOLUTION_FEATURES \(classifier.convolutions.outputCount)
            static const float convolution_mean[GESTURE_FEATURES] = {\(floats(classifier.normalization.mean))};
            static const float convolution_deviation[GESTURE_FEATURES] = {\(floats(classifier.normalization.deviation))};
            /* Each kernel's three taps of nine weighted 2 (the others -1), its dilation, and where its
               channels (the features it sums) and its biases start in the lists after. */
            static const unsigned char kernel_taps[3 * KERNELS] = {\(integers(kernels.flatMap(\.heavyTaps)))};
            static const int kernel_dilations[KERNELS] = {\(integers(kernels.map(\.dilation)))};
            static const int kernel_channel_starts[KERNELS + 1] = {\(starts(kernels.map(\.channels.count)))};
            static const int kernel_channels[\(kernels.map(\.channels.count).reduce(0, +))] = {\(integers(kernels.flatMap(\.channels)))};
            static const int kernel_bias_starts[KERNELS + 1] = {\(starts(kernels.map(\.biases.count)))};
            static const float kernel_biases[CONVOLUTION_FEATURES] = {\(floats(kernels.flatMap(\.biases)))};
            static const float ridge_mean[CONVOLUTION_FEATURES] = {\(floats(ridge.standardization.mean))};
            static const float ridge_deviation[CONVOLUTION_FEATURES] = {\(floats(ridge.standardization.deviation))};
            /* GESTURE_CLASSES × CONVOLUTION_FEATURES, each row one class's weights. */
            static const float ridge_weights[GESTURE_CLASSES * CONVOLUTION_FEATURES] = {\(floats(classMajor))};
            static const float ridge_intercept[GESTURE_CLASSES] = {\(floats(ridge.intercept))};

            /* Adds the window's samples, normalized, to the slot's last GESTURE_HISTORY. */
            static int convolution_remember(const float *window, gesture_state *state) {
                int i, kept = state->recent_count + GESTURE_WINDOW;
                if (kept > GESTURE_HISTORY) {
                    int dropped = kept - GESTURE_HISTORY;
                    memmove(state->recent, state->recent + dropped * GESTURE_FEATURES,
                            sizeof(float) * (state->recent_count - dropped) * GESTURE_FEATURES);
                    kept = GESTURE_HISTORY;
                }
                for (i = 0; i < WINDOW_VALUES; i++)
                    state->recent[(kept - GESTURE_WINDOW) * GESTURE_FEATURES + i] =
                        (window[i] - convolution_mean[i % GESTURE_FEATURES]) / convolution_deviation[i % GESTURE_FEATURES];
                state->recent_count = kept;
                return kept;
            }

            /* Each feature: the share of a kernel's outputs over the slot's samples above one of its
               biases. One statement an operation, so that no compiler fuses a multiply and an add. */
            static void convolution_features(const gesture_state *state, int kept, float *features) {
                float summed[GESTURE_HISTORY], outputs[GESTURE_HISTORY];
                int k, t, j, c, b;
                for (k = 0; k < KERNELS; k++) {
                    const unsigned char *taps = kernel_taps + 3 * k;
                    int dilation = kernel_dilations[k], positions = kept - 8 * dilation;
                    for (t = 0; t < kept; t++) {
                        float sum = 0;
                        for (c = kernel_channel_starts[k]; c < kernel_channel_starts[k + 1]; c++)
                            sum += state->recent[t * GESTURE_FEATURES + kernel_channels[c]];
                        summed[t] = sum;
                    }
                    for (t = 0; t < positions; t++) {
                        float all = 0, heavy, tripled;
                        for (j = 0; j < 9; j++) all += summed[t + j * dilation];
                        heavy = summed[t + taps[0] * dilation] + summed[t + taps[1] * dilation];
                        heavy += summed[t + taps[2] * dilation];
                        tripled = 3 * heavy;
                        outputs[t] = tripled - all;
                    }
                    for (b = kernel_bias_starts[k]; b < kernel_bias_starts[k + 1]; b++) {
                        int above = 0;
                        for (t = 0; t < positions; t++) above += outputs[t] > kernel_biases[b];
                        features[b] = positions > 0 ? (float)above / (float)positions : 0;
                    }
                }
            }

            /* The random convolutions' class scores of the window that ends the slot's stream. */
            static void convolution_scores(const float *window, gesture_state *state, float *scores) {
                float features[CONVOLUTION_FEATURES];
                int i, c;
                convolution_features(state, convolution_remember(window, state), features);
                for (i = 0; i < CONVOLUTION_FEATURES; i++) features[i] = (features[i] - ridge_mean[i]) / ridge_deviation[i];
                for (c = 0; c < GESTURE_CLASSES; c++) {
                    float score = ridge_intercept[c];
                    for (i = 0; i < CONVOLUTION_FEATURES; i++) {
                        float term = ridge_weights[c * CONVOLUTION_FEATURES + i] * features[i];
                        score += term;
                    }
                    scores[c] = score;
                }\(calibration)
            }
            """
    }
}

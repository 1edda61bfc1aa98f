import GestureCore
import GestureLearning
import GestureLive

/// A model as a C99 library with no dependencies but libm, for a microcontroller: `gesture_model.h`
/// and `gesture_model.c`, the weights as const arrays, one streaming prediction, and the
/// overlapping-window detector `gesture detect` runs (window slots with their own state, `rest`
/// never reported, threshold, cooldown, averaging), driven by the caller's timestamps.
public struct CLibrary {
    /// How the weight matrices are stored.
    public enum Weights: String, Sendable, CaseIterable {
        /// As the model holds them: predictions equal GestureLab's.
        case float32
        /// One byte each, with one float scale per row (output unit): a quarter of the flash.
        case int8
    }

    public let model: GestureModel
    public let weights: Weights
    public let settings: DetectionSettings
    public let board: Board

    /// `board`: the sensor the raw readings come from; without one, readings on GestureLab's own axes
    /// at the model's rate.
    public init(
        model: GestureModel, weights: Weights, settings: DetectionSettings = DetectionSettings(), board: Board? = nil
    ) throws(InteropError) {
        try InteropError.checkExportable(model)
        try Self.check(settings, window: model.windowing.window)
        try Self.check(model.randomConvolutions, window: model.windowing.window)
        self.model = model
        self.weights = weights
        self.settings = settings
        self.board = board ?? Board(name: "none", rate: model.samplingRate)
        guard (try? RateMatch(sensorRate: self.board.rate, modelRate: model.samplingRate)) != nil else {
            throw InteropError(
                "\(self.board.name) runs at \(self.board.rate.shortText) Hz, not a whole multiple of the model's "
                    + "\(model.samplingRate.shortText) Hz")
        }
    }

    /// Settings that C can hold and a detector can run: anything else would divide by zero or write
    /// a literal such as `nan`, which is no C.
    private static func check(_ settings: DetectionSettings, window: Int) throws(InteropError) {
        guard settings.offset > 0, window % settings.offset == 0 else {
            throw InteropError("the offset \(settings.offset) must divide the model's window of \(window) samples")
        }
        guard settings.averaging >= 1 else {
            throw InteropError("averaging \(settings.averaging) is not a positive number")
        }
        guard (0...1).contains(settings.threshold) else {
            throw InteropError("the threshold \(settings.threshold) is not a probability from 0 to 1")
        }
        guard settings.cooldown.isFinite, settings.cooldown >= 0 else {
            throw InteropError("the cooldown \(settings.cooldown) is not a number of seconds, 0 or more")
        }
    }

    /// A program that checks a library against GestureLab, as the tests and `gesture-bench c-library`
    /// do: it reads "windows N" then N windows (one stream), or "samples N" then N lines of a time and
    /// a sample (the detector), and prints each window's probabilities and "unknown" or "known"
    /// (motion), or each prediction's time, class, whether it is a detection, its probability and
    /// whether it is unknown motion; then "sizes" and sizeof the detector. "readings N RATE" then N
    /// lines of a time, acceleration and rotation rate: the board, printing "f" and the features of
    /// each reading the model takes, "p" and each prediction as above.
    public static let checkProgram = """
        #include "gesture_model.h"
        #include <stdio.h>
        #include <string.h>

        int main(void) {
            char kind[16];
            long n, k;
            int i;
            if (scanf("%15s %ld", kind, &n) != 2) return 2;
            if (strcmp(kind, "windows") == 0) {
                gesture_state state;
                gesture_state_reset(&state);
                for (k = 0; k < n; k++) {
                    float window[GESTURE_WINDOW * GESTURE_FEATURES], probabilities[GESTURE_CLASSES];
                    for (i = 0; i < GESTURE_WINDOW * GESTURE_FEATURES; i++) if (scanf("%f", &window[i]) != 1) return 2;
                    gesture_predict(window, &state, probabilities);
                    for (i = 0; i < GESTURE_CLASSES; i++) printf("%.9g ", probabilities[i]);
                    printf("%s\\n", gesture_is_unknown(probabilities, &state) ? "unknown" : "known");
                }
            } else if (strcmp(kind, "readings") == 0) {
                static gesture_board board;
                double rate;
                if (scanf("%lf", &rate) != 1 || !gesture_board_init(&board, rate)) return 2;
                for (k = 0; k < n; k++) {
                    double time, acceleration[3], rotation_rate[3];
                    float features[GESTURE_FEATURES];
                    gesture_prediction prediction;
                    if (scanf("%lf %lf %lf %lf %lf %lf %lf", &time, &acceleration[0], &acceleration[1], &acceleration[2],
                              &rotation_rate[0], &rotation_rate[1], &rotation_rate[2]) != 7) return 2;
                    if (!gesture_board_features(&board, time, acceleration, rotation_rate, features)) continue;
                    printf("f");
                    for (i = 0; i < GESTURE_FEATURES; i++) printf(" %.9g", features[i]);
                    printf("\\n");
                    if (gesture_detector_add_features(&board.detector, features, time, &prediction))
                        printf("p %.17g %s %d %.9g %d\\n", prediction.time, gesture_class_names[prediction.gesture],
                               prediction.detected, prediction.probability, prediction.unknown);
                }
                printf("sizes %lu\\n", (unsigned long)sizeof board);
                return 0;
            } else {
                gesture_detector detector;
                gesture_detector_init(&detector);
                for (k = 0; k < n; k++) {
                    double time;
                    float sample[GESTURE_FEATURES];
                    gesture_prediction prediction;
                    if (scanf("%lf", &time) != 1) return 2;
                    for (i = 0; i < GESTURE_FEATURES; i++) if (scanf("%f", &sample[i]) != 1) return 2;
                    if (gesture_detector_add_features(&detector, sample, time, &prediction))
                        printf("%.9g %s %d %.9g %d\\n", prediction.time, gesture_class_names[prediction.gesture],
                               prediction.detected, prediction.probability, prediction.unknown);
                }
            }
            printf("sizes %lu\\n", (unsigned long)sizeof(gesture_detector));
            return 0;
        }
        """

    public static let headerName = "gesture_model.h"
    public static let sourceName = "gesture_model.c"

    private var layers: NetworkWeights { model.weights }
    var units: Int { model.architecture.lstmUnits }
    var slots: Int { model.windowing.window / settings.offset }

    /// Bytes of constant data: the weights (and their scales), biases, normalization and rejection.
    public var flashBytes: Int {
        let values = matrices.map(\.values.count).reduce(0, +), rows = matrices.map(\.rows).reduce(0, +)
        let matrixBytes = weights == .int8 ? values + 4 * rows : 4 * values
        return matrixBytes + 4 * vectors.map(\.values.count).reduce(0, +) + rejectionBytes + convolutionBytes
    }

    /// Bytes of RAM, at most: one board (its detector: its sample ring, a state per window slot, recent
    /// predictions, 64 bytes of settings and counters; the attitude) and the scratch of one prediction
    /// on the stack.
    public var ramBytes: Int { boardBytes + stackBytes }

    /// Bytes of one `gesture_detector`, at most.
    var detectorBytes: Int {
        4 * (2 * windowValues + slots * 2 * units + settings.averaging * model.classNames.count) + 64
            + slots * (motionStateBytes + convolutionStateBytes)
    }

    /// Bytes of one `gesture_board`, at most: its detector, the attitude and the reading count.
    var boardBytes: Int { detectorBytes + 64 }

    /// Bytes of the stack `gesture_board_add` takes for one prediction: its features, the arrays of
    /// `gesture_detector_add_features` and the functions it calls, and 256 for their frames and
    /// libm's (a Cortex-M4F build needs ~110).
    var stackBytes: Int {
        let arrays =
            2 * windowValues + model.architecture.convolutionFilters + 5 * units + model.architecture.denseUnits
            + 2 * model.classNames.count + model.featureNames.count + (motion?.center.count ?? 0)
        return 4 * arrays + convolutionStackBytes + 256
    }

    private var windowValues: Int { model.windowing.window * model.featureNames.count }

    public var header: String {
        let names = { (list: [String]) in list.map(\.cLiteral).joined(separator: ", ") }
        return """
            \(openingComment)
            #ifndef GESTURE_MODEL_H
            #define GESTURE_MODEL_H

            #define GESTURE_FEATURES \(model.featureNames.count)
            #define GESTURE_WINDOW \(model.windowing.window)
            #define GESTURE_CLASSES \(model.classNames.count)
            #define GESTURE_UNITS \(units)
            #define GESTURE_RATE \(model.samplingRate.shortText)\(convolutionDefine)
            /* The detector: a prediction every GESTURE_OFFSET samples, each of the GESTURE_SLOTS overlapping
               windows carrying its own state; at most GESTURE_MAX_AVERAGING predictions averaged. */
            #define GESTURE_OFFSET \(settings.offset)
            #define GESTURE_SLOTS \(slots)
            #define GESTURE_MAX_AVERAGING \(settings.averaging)

            extern const char *const gesture_class_names[GESTURE_CLASSES]; /* { \(names(model.classNames)) } */
            extern const char *const gesture_feature_names[GESTURE_FEATURES]; /* { \(names(model.featureNames)) } */

            /* The LSTM's memory from one window to the next; zeros (gesture_state_reset) to start. */
            typedef struct {
                float hidden[GESTURE_UNITS];
                float cell[GESTURE_UNITS];\(motionStateFields)\(convolutionStateFields)
            } gesture_state;

            void gesture_state_reset(gesture_state *state);

            /* One window of GESTURE_WINDOW samples of GESTURE_FEATURES raw features, sample by sample, in
               `window`; writes the class probabilities and updates `state`. */
            void gesture_predict(const float *window, gesture_state *state, float *probabilities);
            \(rejectionDeclaration)

            typedef struct {
                double time;        /* the timestamp of the sample that completed the window */
                int gesture;        /* the most probable class, an index of gesture_class_names */
                float probability;
                int detected;       /* 1 when this prediction is a detection */
                int unknown;        /* 1 when the detector rejects the window as unknown motion: never a detection */
                float probabilities[GESTURE_CLASSES];
            } gesture_prediction;

            typedef struct {
                double threshold;   /* the probability a gesture needs */
                double cooldown;    /* seconds after a detection without another */
                int averaging;      /* predictions averaged, 1 to GESTURE_MAX_AVERAGING */
                int rest;           /* the class never reported, -1 for none */
                int background;     /* the class of recorded everyday motion, never reported, -1 for none */
                int reject;         /* 1: a window gesture_is_unknown finds unknown motion is never reported */
                float samples[2 * GESTURE_WINDOW * GESTURE_FEATURES];
                int next;
                long count;
                gesture_state states[GESTURE_SLOTS];
                float recent[GESTURE_MAX_AVERAGING][GESTURE_CLASSES];
                int recent_count;
                double quiet_until;
            } gesture_detector;

            /* Threshold \(settings.threshold), cooldown \(settings.cooldown.shortText) s, averaging \(settings.averaging), \
            rest \(settings.rest.cLiteral), unknown motion \(settings.reject ? "rejected" : "not rejected"): `gesture detect`'s settings at export. */
            void gesture_detector_init(gesture_detector *detector);

            /* For data already fused: adds one sample of GESTURE_FEATURES features (the order above) taken at
               `time` seconds. Returns 1 and fills `prediction` when the sample completes a window, else 0. */
            int gesture_detector_add_features(gesture_detector *detector, const float *sample, double time,
                                              gesture_prediction *prediction);
            \(boardDeclarations)
            #endif

            """
    }

    public var source: String {
        var lines = [
            "#include \"\(Self.headerName)\"", "", "#include <float.h>", "#include <math.h>", "#include <string.h>", "",
        ]
        let names = { (list: [String]) in list.map(\.cLiteral).joined(separator: ", ") }
        lines.append("const char *const gesture_class_names[GESTURE_CLASSES] = {\(names(model.classNames))};")
        lines.append("const char *const gesture_feature_names[GESTURE_FEATURES] = {\(names(model.featureNames))};")
        lines.append("")
        for vector in vectors { lines.append(vector.declaration) }
        for matrix in matrices { lines += matrix.declarations(weights) }
        lines.append(functions)
        lines.append(boardSource)
        return lines.joined(separator: "\n")
    }

    /// `layers` as C matrices, each row one output's weights.
    private var matrices: [CMatrix] {
        let lstm = layers.lstm
        let gates = LSTMWeights.Gate.allCases
        let input = gates.flatMap(lstm.inputMatrix), recurrent = gates.flatMap(lstm.recurrentMatrix)
        let inputs = lstm.inputs, units = units
        let stacked = (0..<4 * units).flatMap { (row: Int) -> [Float] in
            Array(input[row * inputs..<(row + 1) * inputs]) + Array(recurrent[row * units..<(row + 1) * units])
        }
        return [
            CMatrix(name: "convolution", rows: layers.convolution.outputs, values: layers.convolution.transposedWeight),
            CMatrix(name: "lstm", rows: 4 * units, values: stacked),
            CMatrix(name: "dense", rows: layers.dense.outputs, values: layers.dense.transposedWeight),
            CMatrix(name: "output", rows: layers.output.outputs, values: layers.output.transposedWeight),
        ]
    }

    /// Batch norm as one scale and shift per feature.
    private var vectors: [CVector] {
        let norm = layers.batchNorm
        let scale = zip(norm.scale, norm.variance).map { $0 / ($1 + norm.epsilon).squareRoot() }
        let shift = (0..<scale.count).map { norm.shift[$0] - norm.mean[$0] * scale[$0] }
        return [
            CVector(name: "feature_mean", values: model.normalization.mean),
            CVector(name: "feature_deviation", values: model.normalization.deviation),
            CVector(name: "convolution_bias", values: layers.convolution.bias),
            CVector(name: "lstm_bias", values: layers.lstm.bias),
            CVector(name: "dense_bias", values: layers.dense.bias),
            CVector(name: "norm_scale", values: scale), CVector(name: "norm_shift", values: shift),
            CVector(name: "output_bias", values: layers.output.bias),
        ]
    }

    private var functions: String {
        let filters = model.architecture.convolutionFilters, dense = model.architecture.denseUnits
        let product = weights == .int8 ? "product_int8" : "product"
        let rest = model.classNames.firstIndex(of: settings.rest) ?? -1
        return """

            #define WINDOW_VALUES (GESTURE_WINDOW * GESTURE_FEATURES)
            #define FILTERS \(filters)
            #define DENSE \(dense)

            \(weights == .int8 ? CTemplates.int8Product : CTemplates.floatProduct)
            static float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
            \(CTemplates.softmax)

            void gesture_state_reset(gesture_state *state) { memset(state, 0, sizeof *state); }

            /* The dense layer, batch norm and ReLU on the LSTM's hidden state. */
            static void dense_embedding(const float *hidden, float *out) {
                int i;
                \(product)(\(CMatrix.arguments("dense", weights)), DENSE, GESTURE_UNITS, hidden, dense_bias, out);
                for (i = 0; i < DENSE; i++) {
                    float normal = out[i] * norm_scale[i] + norm_shift[i];
                    out[i] = normal > 0 ? normal : 0;
                }
            }

            \(motionSource)\(convolutionSource)
            void gesture_predict(const float *window, gesture_state *state, float *probabilities) {
                float normalized[WINDOW_VALUES], lstm_input[FILTERS + GESTURE_UNITS], gates[4 * GESTURE_UNITS];
                float hidden[DENSE];
                int i;
                for (i = 0; i < WINDOW_VALUES; i++)
                    normalized[i] = (window[i] - feature_mean[i % GESTURE_FEATURES]) / feature_deviation[i % GESTURE_FEATURES];
                \(motionUpdate)
                \(product)(\(CMatrix.arguments("convolution", weights)), FILTERS, WINDOW_VALUES, normalized, convolution_bias, lstm_input);
                for (i = 0; i < FILTERS; i++) lstm_input[i] = lstm_input[i] > 0 ? lstm_input[i] : 0;
                memcpy(lstm_input + FILTERS, state->hidden, sizeof state->hidden);
                \(product)(\(CMatrix.arguments("lstm", weights)), 4 * GESTURE_UNITS, FILTERS + GESTURE_UNITS, lstm_input, lstm_bias, gates);
                for (i = 0; i < GESTURE_UNITS; i++) {
                    float input = sigmoid(gates[i]), forget = sigmoid(gates[GESTURE_UNITS + i]);
                    float candidate = tanhf(gates[2 * GESTURE_UNITS + i]), output = sigmoid(gates[3 * GESTURE_UNITS + i]);
                    state->cell[i] = forget * state->cell[i] + input * candidate;
                    state->hidden[i] = output * tanhf(state->cell[i]);
                }
                dense_embedding(state->hidden, hidden);
                \(product)(\(CMatrix.arguments("output", weights)), GESTURE_CLASSES, DENSE, hidden, output_bias, probabilities);
                softmax(probabilities);
                \(convolutionAverage)
            }

            void gesture_detector_init(gesture_detector *detector) {
                memset(detector, 0, sizeof *detector);
                detector->threshold = \(settings.threshold);
                detector->cooldown = \(settings.cooldown);
                detector->averaging = \(settings.averaging);
                detector->rest = \(rest);
                detector->background = \(model.classNames.firstIndex(of: ActivityLabel.other.rawValue) ?? -1);
                detector->reject = \(settings.reject ? 1 : 0);
                detector->quiet_until = -HUGE_VAL;
            }
            \(rejectionSource)
            \(CTemplates.detector)
            """
    }
}

/// A vector of constants.
private struct CVector {
    let name: String
    let values: [Float]

    var declaration: String {
        "static const float \(name)[\(values.count)] = {\(values.map(\.cLiteral).joined(separator: ", "))};"
    }
}

/// A matrix of constants, row-major, each row one output's weights.
private struct CMatrix {
    let name: String
    let rows: Int
    let values: [Float]

    func declarations(_ format: CLibrary.Weights) -> [String] {
        switch format {
        case .float32:
            return [
                "static const float \(name)_weights[\(values.count)] = {\(values.map(\.cLiteral).joined(separator: ","))};"
            ]
        case .int8:
            let columns = values.count / rows
            let scales = (0..<rows).map { row in
                values[row * columns..<(row + 1) * columns].map(abs).max().map { $0 / 127 } ?? 0
            }
            let quantized = values.indices.map { index -> Int in
                let scale = scales[index / columns]
                return scale > 0 ? Int((values[index] / scale).rounded()) : 0
            }
            return [
                "static const signed char \(name)_weights[\(values.count)] = {\(quantized.map(String.init).joined(separator: ","))};",
                "static const float \(name)_scales[\(rows)] = {\(scales.map(\.cLiteral).joined(separator: ", "))};",
            ]
        }
    }

    static func arguments(_ name: String, _ format: CLibrary.Weights) -> String {
        format == .int8 ? "\(name)_weights, \(name)_scales" : "\(name)_weights"
    }
}

extension Float {
    /// A C literal that reads back as exactly this float.
    var cLiteral: String { "\(self)f" }
}

extension String {
    /// A C string literal of these UTF-8 bytes, safe in code and in comments alike: printable ASCII
    /// as itself, `"` and `\\` escaped, and as octal escapes every other byte, `?` (no trigraph)
    /// and `/` (no `*/` or `/*`).
    var cLiteral: String {
        let plain = utf8.map { byte -> String in
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): "\\" + String(UnicodeScalar(byte))
            case UInt8(ascii: "?"), UInt8(ascii: "/"), ..<0x20, 0x7F...: "\\" + Self.octal(byte)
            default: String(UnicodeScalar(byte))
            }
        }
        return "\"" + plain.joined() + "\""
    }

    /// Three digits always, so that a digit after it does not extend the escape.
    private static func octal(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 8)
        return String(repeating: "0", count: 3 - digits.count) + digits
    }
}

/// The parts of the C source that do not depend on the model.
private enum CTemplates {
    static let floatProduct = """
        /* out = bias + weights · x, weights rows × columns. */
        static void product(const float *weights, int rows, int columns, const float *x, const float *bias, float *out) {
            int row, column;
            for (row = 0; row < rows; row++) {
                float sum = 0;
                for (column = 0; column < columns; column++) sum += weights[row * columns + column] * x[column];
                out[row] = bias[row] + sum;
            }
        }
        """

    static let int8Product = """
        /* out = bias + scale · (weights · x), weights rows × columns of int8 with a scale per row. */
        static void product_int8(const signed char *weights, const float *scales, int rows, int columns, const float *x,
                                 const float *bias, float *out) {
            int row, column;
            for (row = 0; row < rows; row++) {
                float sum = 0;
                for (column = 0; column < columns; column++) sum += (float)weights[row * columns + column] * x[column];
                out[row] = bias[row] + scales[row] * sum;
            }
        }
        """

    static let softmax = """
        static void softmax(float *values) {
            float largest = values[0], sum = 0;
            int i;
            for (i = 1; i < GESTURE_CLASSES; i++) largest = values[i] > largest ? values[i] : largest;
            for (i = 0; i < GESTURE_CLASSES; i++) sum += values[i] = expf(values[i] - largest);
            for (i = 0; i < GESTURE_CLASSES; i++) values[i] /= sum;
        }
        """

    static let detector = """


        int gesture_detector_add_features(gesture_detector *detector, const float *sample, double time,
                                          gesture_prediction *prediction) {
            const int values = GESTURE_FEATURES;
            float window[GESTURE_WINDOW * GESTURE_FEATURES], probabilities[GESTURE_CLASSES];
            int slot, i, k, best = 0;
            /* Each sample twice, a window apart, so the newest window is always contiguous. */
            memcpy(detector->samples + detector->next * values, sample, values * sizeof *sample);
            memcpy(detector->samples + (detector->next + GESTURE_WINDOW) * values, sample, values * sizeof *sample);
            detector->next = (detector->next + 1) % GESTURE_WINDOW;
            detector->count++;
            if (detector->count < GESTURE_WINDOW || (detector->count - GESTURE_WINDOW) % GESTURE_OFFSET != 0) return 0;
            slot = (int)((detector->count - GESTURE_WINDOW) / GESTURE_OFFSET % GESTURE_SLOTS);
            memcpy(window, detector->samples + detector->next * values, sizeof window);
            gesture_predict(window, &detector->states[slot], probabilities);
            prediction->unknown = detector->reject && gesture_is_unknown(probabilities, &detector->states[slot]);
            /* The latest `averaging` predictions, oldest first. */
            if (detector->recent_count == detector->averaging) {
                memmove(detector->recent[0], detector->recent[1], (detector->averaging - 1) * sizeof detector->recent[0]);
                detector->recent_count--;
            }
            memcpy(detector->recent[detector->recent_count++], probabilities, sizeof probabilities);
            for (i = 0; i < GESTURE_CLASSES; i++) {
                float sum = 0;
                for (k = 0; k < detector->recent_count; k++) sum += detector->recent[k][i];
                prediction->probabilities[i] = sum / (float)detector->recent_count;
                if (prediction->probabilities[i] > prediction->probabilities[best]) best = i;
            }
            prediction->time = time;
            prediction->gesture = best;
            prediction->probability = prediction->probabilities[best];
            prediction->detected = best != detector->rest && best != detector->background && !prediction->unknown &&
                                   (double)prediction->probability >= detector->threshold && time >= detector->quiet_until;
            if (prediction->detected) detector->quiet_until = time + detector->cooldown;
            return 1;
        }
        """
}

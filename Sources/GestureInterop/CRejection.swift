import GestureLearning

/// The model's rejection of unknown motion in C: its prototypes and limits as constants, and
/// `gesture_is_unknown`, the distance test `StreamingClassifier.rejects` makes, in the same float
/// arithmetic and order.
extension CLibrary {
    var rejection: Rejection? { model.exportedRejection }

    /// Bytes of its constants: the prototypes, their classes (int) and the limits.
    var rejectionBytes: Int {
        (rejection.map { 4 * ($0.prototypes.count + $0.labels.count + model.classNames.count) } ?? 0) + motionBytes
    }

    /// What the header's opening comment says of it.
    var rejectionSection: [String] {
        guard rejection != nil else {
            return [
                "   Unknown motion: the model was trained before GestureLab rejected motion unlike its gestures;",
                "   every window goes to a class (gesture_is_unknown returns 0).",
            ]
        }
        return [
            "   Unknown motion: the model rejects motion unlike the gestures it was taught, as `gesture detect`",
            "   does: gesture_is_unknown says whether a window is such motion, and the detector never reports",
            "   one (prediction.unknown is 1, prediction.detected 0) while `reject` is 1; gesture_detector_init",
            "   sets it to \(settings.reject ? 1 : 0) (`gesture export --reject \(settings.reject ? "on" : "off")`).",
        ]
    }

    var rejectionDeclaration: String {
        let test =
            rejection.map { rejection in
                let embedding = rejection.embedding == .lstm ? "the LSTM's hidden state" : "the dense layer's output"
                return [
                    "   Returns 1 when the cosine distance from the window's embedding (\(embedding)) to the",
                    "   nearest prototype of its most probable class is beyond that class's limit, set in training",
                    "   so that \((rejection.falseRejectRate * 100).shortText) % of the class's windows lie beyond it: as `gesture detect` decides.",
                ]
                    + (rejection.motion == nil
                        ? []
                        : [
                            "   First, it returns 1 when the slot's recent means and spreads of each feature (moving averages",
                            "   gesture_predict keeps in `state`) lie beyond the limit from every prototype of that class.",
                        ])
            } ?? ["   The model has no rejection (it was trained before GestureLab had one): 0 always."]
        return """

            /* Whether the window gesture_predict just classified is motion unlike every gesture the model was
               taught (unknown motion); `probabilities` and `state` as gesture_predict left them.
            \(test.joined(separator: "\n")) */
            int gesture_is_unknown(const float *probabilities, const gesture_state *state);
            """
    }

    /// The prototypes, their classes and each class's limit, and the test.
    var rejectionSource: String {
        guard let rejection else {
            return """

                int gesture_is_unknown(const float *probabilities, const gesture_state *state) {
                    (void)probabilities;
                    (void)state;
                    return 0;
                }
                """
        }
        let limits = rejection.limits(classes: model.classNames.count)
        let embedding =
            rejection.embedding == .lstm
            ? "const float *embedding = state->hidden;"
            : "float embedding[DENSE];\n    dense_embedding(state->hidden, embedding);"
        return """

            #define REJECTION_PROTOTYPES \(rejection.labels.count)
            #define REJECTION_DIMENSION \(rejection.dimension)
            /* Unit length, REJECTION_PROTOTYPES × REJECTION_DIMENSION, and each one's class. */
            static const float rejection_prototypes[\(rejection.prototypes.count)] = {\(rejection.prototypes.map(\.cLiteral).joined(separator: ","))};
            static const int rejection_labels[REJECTION_PROTOTYPES] = {\(rejection.labels.map(String.init).joined(separator: ", "))};
            static const float rejection_limits[GESTURE_CLASSES] = {\(limits.map(\.cLiteral).joined(separator: ", "))};

            int gesture_is_unknown(const float *probabilities, const gesture_state *state) {
                \(embedding)
                float norm = 0, nearest = 0;
                int i, p, top = 0;
                for (i = 1; i < GESTURE_CLASSES; i++) top = probabilities[i] > probabilities[top] ? i : top;
                \(motionTest)
                for (i = 0; i < REJECTION_DIMENSION; i++) norm += embedding[i] * embedding[i];
                for (p = 0; p < REJECTION_PROTOTYPES; p++) if (rejection_labels[p] == top) nearest = 2;
                for (p = 0; p < REJECTION_PROTOTYPES; p++) {
                    float product = 0, similarity;
                    if (rejection_labels[p] != top) continue;
                    for (i = 0; i < REJECTION_DIMENSION; i++)
                        product += embedding[i] * rejection_prototypes[p * REJECTION_DIMENSION + i];
                    similarity = norm > 0 ? product / sqrtf(norm) : 0;
                    nearest = 1 - similarity < nearest ? 1 - similarity : nearest;
                }
                return nearest > rejection_limits[top];
            }
            """
    }
}

/// The rejection's test of the motion's statistics in C: each slot's moving averages in
/// `gesture_state`, updated by `gesture_predict` from the normalized window, and the test
/// `gesture_is_unknown` makes first, in the float arithmetic and order of `MotionRejection`.
extension CLibrary {
    var motion: MotionRejection? { rejection?.motion }

    /// Bytes of its constants: the standardization, the prototypes, their classes and the limits.
    var motionBytes: Int {
        motion.map { 4 * (2 * $0.center.count + $0.prototypes.count + $0.labels.count + model.classNames.count) } ?? 0
    }

    /// Bytes of its state in one slot: the averages and their weight.
    var motionStateBytes: Int { motion.map { 4 * ($0.center.count + 1) } ?? 0 }

    var motionStateFields: String {
        guard motion != nil else { return "" }
        return """

                float motion[2 * GESTURE_FEATURES]; /* moving averages of each feature's mean, then mean square */
                float motion_weight;
            """
    }

    var motionUpdate: String { motion == nil ? "" : "motion_add(normalized, state);" }

    var motionTest: String { motion == nil ? "" : "if (motion_is_unknown(top, state)) return 1;" }

    var motionSource: String {
        guard let motion else { return "" }
        let limits = model.classNames.indices.map {
            $0 < motion.limits.count ? motion.limits[$0] : .greatestFiniteMagnitude
        }
        let floats = { (values: [Float]) in values.map(\.cLiteral).joined(separator: ",") }
        return """

            #define MOTION_DECAY \(motion.decay.cLiteral)
            #define MOTION_DIMENSION \(motion.center.count)
            #define MOTION_PROTOTYPES \(motion.labels.count)
            static const float motion_center[MOTION_DIMENSION] = {\(floats(motion.center))};
            static const float motion_scale[MOTION_DIMENSION] = {\(floats(motion.scale))};
            /* Standardized statistics, MOTION_PROTOTYPES × MOTION_DIMENSION, and each one's class. */
            static const float motion_prototypes[\(max(motion.prototypes.count, 1))] = {\(floats(motion.prototypes.isEmpty ? [0] : motion.prototypes))};
            static const int motion_labels[\(max(motion.labels.count, 1))] = {\(motion.labels.isEmpty ? "-1" : motion.labels.map(String.init).joined(separator: ", "))};
            static const float motion_limits[GESTURE_CLASSES] = {\(floats(limits))};

            static void motion_add(const float *normalized, gesture_state *state) {
                int f, s;
                for (f = 0; f < GESTURE_FEATURES; f++) {
                    float sum = 0, squares = 0;
                    for (s = 0; s < GESTURE_WINDOW; s++) {
                        float value = normalized[s * GESTURE_FEATURES + f];
                        sum += value;
                        squares += value * value;
                    }
                    state->motion[f] = MOTION_DECAY * state->motion[f] + (1 - MOTION_DECAY) * sum / GESTURE_WINDOW;
                    state->motion[GESTURE_FEATURES + f] =
                        MOTION_DECAY * state->motion[GESTURE_FEATURES + f] + (1 - MOTION_DECAY) * squares / GESTURE_WINDOW;
                }
                state->motion_weight = MOTION_DECAY * state->motion_weight + (1 - MOTION_DECAY);
            }

            /* Whether the slot's recent means and spreads, standardized, lie beyond `top`'s limit from
               every prototype of it; never for a class without prototypes. */
            static int motion_is_unknown(int top, const gesture_state *state) {
                float statistics[MOTION_DIMENSION], nearest = -1;
                float weight = state->motion_weight > FLT_MIN ? state->motion_weight : FLT_MIN;
                int i, p;
                for (i = 0; i < GESTURE_FEATURES; i++) {
                    float mean = state->motion[i] / weight;
                    float spread = state->motion[GESTURE_FEATURES + i] / weight - mean * mean;
                    statistics[i] = (mean - motion_center[i]) / motion_scale[i];
                    statistics[GESTURE_FEATURES + i] = (sqrtf(spread > 0 ? spread : 0) - motion_center[GESTURE_FEATURES + i])
                        / motion_scale[GESTURE_FEATURES + i];
                }
                for (p = 0; p < MOTION_PROTOTYPES; p++) {
                    float sum = 0;
                    if (motion_labels[p] != top) continue;
                    for (i = 0; i < MOTION_DIMENSION; i++) {
                        float difference = statistics[i] - motion_prototypes[p * MOTION_DIMENSION + i];
                        sum += difference * difference;
                    }
                    nearest = nearest < 0 || sum < nearest ? sum : nearest;
                }
                return (nearest < 0 ? 0 : sqrtf(nearest)) > motion_limits[top];
            }
            """
    }
}

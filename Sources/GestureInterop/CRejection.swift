import GestureLearning

/// The model's rejection of unknown motion in C: its prototypes and limits as constants, and
/// `gesture_is_unknown`, the distance test `StreamingClassifier.rejects` makes, in the same float
/// arithmetic and order.
extension CLibrary {
    var rejection: Rejection? { model.exportedRejection }

    /// Bytes of its constants: the prototypes, their classes (int) and the limits.
    var rejectionBytes: Int {
        rejection.map { 4 * ($0.prototypes.count + $0.labels.count + model.classNames.count) } ?? 0
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

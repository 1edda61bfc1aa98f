import GestureLearning

/// Why a model cannot be written in another format, or read from one.
public struct InteropError: Error, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }

    /// The formats carry Turi Create's network alone: a model personalised by k nearest neighbours
    /// has no network output for its classes, and the temporal convolution is GestureLab's own.
    static func checkExportable(_ model: GestureModel) throws(InteropError) {
        guard model.neighbours == nil else {
            throw InteropError(
                "the model is personalised by k nearest neighbours, which Core ML, ONNX and C exports do not carry; "
                    + "personalise with --method finetune to export it")
        }
        guard model.architecture.temporal == nil else {
            throw InteropError(
                "the model has GestureLab's temporal convolution, which Core ML, ONNX and C exports do not carry; "
                    + "train it with --architecture turi to export it")
        }
    }
}

import GestureLearning

extension StreamingClassifier: WindowClassifier {
    public var classNames: [String] { model.classNames }
}

/// A class a model took for another: how many of the target's windows, and what share of them.
public struct Mistake: Sendable, Equatable, Encodable, CustomStringConvertible {
    public var target: String
    public var predicted: String
    public var windows: Int
    /// `windows` over all the windows whose target is `target`.
    public var share: Double

    public var description: String { "\(target) as \(predicted) \(Int((share * 100).rounded())) %" }
}

extension Evaluation {
    /// The `count` largest shares of a class's windows taken for another, over `evaluations` of the
    /// same classes together (such as one fold's seeds); the largest first, ties by class order.
    public static func largestMistakes(of evaluations: [Evaluation], count: Int) -> [Mistake] {
        guard let names = evaluations.first?.classNames else { return [] }
        var windows = Array(repeating: Array(repeating: 0, count: names.count), count: names.count)
        for evaluation in evaluations {
            precondition(evaluation.classNames == names, "evaluations of different classes")
            for (target, row) in evaluation.confusion.enumerated() {
                for (predicted, count) in row.enumerated() { windows[target][predicted] += count }
            }
        }
        let mistakes = names.indices.flatMap { target in
            let total = windows[target].reduce(0, +)
            return names.indices.filter { $0 != target && windows[target][$0] > 0 }.map { predicted in
                Mistake(
                    target: names[target], predicted: names[predicted], windows: windows[target][predicted],
                    share: Double(windows[target][predicted]) / Double(total))
            }
        }
        let ranked = mistakes.enumerated().sorted { a, b in
            a.element.share != b.element.share ? a.element.share > b.element.share : a.offset < b.offset
        }
        return ranked.prefix(count).map(\.element)
    }
}

extension [Mistake] {
    /// The mistakes as a list, "ER as IR 45 %, IR as ER 37 %", or "none".
    public var listed: String { isEmpty ? "none" : map(\.description).joined(separator: ", ") }
}

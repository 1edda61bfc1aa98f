import Foundation
import GestureAnalysis
import GestureCore
import GestureLearning

/// Training history and evaluation as people read them: text, CSV and SVG.
public enum Reports {
    /// One line per epoch, as `gesture train` prints it.
    public static func epochLine(_ report: EpochReport, of epochs: Int, secondsLeft: Double) -> String {
        var line = String(
            format: "epoch %3d/%d  train loss %.4f acc %.3f", report.epoch, epochs,
            report.trainingLoss, report.trainingAccuracy)
        if let loss = report.validationLoss, let accuracy = report.validationAccuracy {
            line += String(format: "  validation loss %.4f acc %.3f", loss, accuracy)
        }
        return line + String(format: "  %.2f s, %.0f s left", report.seconds, secondsLeft)
    }

    public static func historyCSV(_ history: [EpochReport]) -> String {
        let rows = history.map { report in
            [
                String(report.epoch), "\(report.trainingLoss)", "\(report.trainingAccuracy)",
                report.validationLoss.map { "\($0)" } ?? "", report.validationAccuracy.map { "\($0)" } ?? "",
                "\(report.seconds)",
            ].joined(separator: ",")
        }
        return (["epoch,trainingLoss,trainingAccuracy,validationLoss,validationAccuracy,seconds"] + rows)
            .joined(separator: "\n") + "\n"
    }

    /// Loss and accuracy over the epochs, training and validation, on two panels, the kept epoch
    /// (the lowest validation loss, or training loss without validation) marked on both; with
    /// weight averaging, `averagedFrom` the first of the epochs averaged through `keptEpoch`.
    public static func historySVG(_ history: [EpochReport], keptEpoch: Int, averagedFrom: Int? = nil) -> String {
        func series(_ name: String, _ value: (EpochReport) -> Double?) -> LineChart.Series? {
            let points = history.compactMap { report in value(report).map { (x: Double(report.epoch), y: $0) } }
            return points.isEmpty ? nil : LineChart.Series(name: name, points: points)
        }
        let epochs = 0.7...(Double(max(1, history.count)) + 0.3)
        let label = averagedFrom.map { "mean of epochs \($0)–\(keptEpoch)" } ?? "kept epoch \(keptEpoch)"
        let kept = keptEpoch > 0 ? [LineChart.Marker(x: Double(keptEpoch), label: label)] : []
        let loss = LineChart(
            title: "Loss", xLabel: "epoch", yLabel: "cross-entropy",
            series: [
                series("training", { Double($0.trainingLoss) }),
                series("validation", { $0.validationLoss.map(Double.init) }),
            ].compactMap { $0 }, markers: kept, xTickStep: 1, xRange: epochs)
        let accuracy = LineChart(
            title: "Window accuracy", xLabel: "epoch", yLabel: "accuracy",
            series: [
                series("training", { $0.trainingAccuracy }), series("validation", { $0.validationAccuracy }),
            ].compactMap { $0 }, markers: kept, xTickStep: 1, xRange: epochs)
        return ChartPage(charts: [loss, accuracy], width: 760).svg.text
    }

    /// The evaluation as text: accuracy, per-class figures, the confusion matrix, sessions and users.
    public static func evaluationText(_ evaluation: Evaluation) -> String {
        var lines = [
            String(
                format: "window accuracy %.4f, macro F1 %.4f, session accuracy %.4f", evaluation.accuracy,
                evaluation.macroF1, evaluation.sessionAccuracy)
                + " (\(evaluation.sessionsRecognised) of \(evaluation.sessionsWithGesture.counting("session")) with a gesture)"
        ]
        lines.append("")
        lines.append(
            table(
                ["class", "precision", "recall", "F1", "windows"],
                evaluation.classes.map {
                    [
                        $0.name, String(format: "%.3f", $0.precision), String(format: "%.3f", $0.recall),
                        String(format: "%.3f", $0.f1), "\($0.support)",
                    ]
                }))
        lines.append("")
        lines.append("confusion matrix (rows: target, columns: predicted)")
        lines.append(
            table(
                ["target"] + evaluation.classNames,
                zip(evaluation.classNames, evaluation.confusion).map { [$0] + $1.map(String.init) }))
        lines.append("")
        lines.append(
            table(
                ["user", "windows", "accuracy"],
                evaluation.users.map {
                    [$0.user.rawValue, "\($0.windows)", String(format: "%.3f", $0.accuracy)]
                }))
        return lines.joined(separator: "\n")
    }

    /// One row per session: its gesture, the gesture found, its gesture windows right, its window
    /// accuracy, and how many of its windows were predicted as each class.
    public static func sessionsText(_ evaluation: Evaluation) -> String {
        table(
            ["session", "user", "gesture", "predicted", "gesture windows right", "window accuracy"]
                + evaluation.classNames,
            evaluation.sessions.map { session in
                [
                    session.session.rawValue, session.user.rawValue, session.gesture ?? "-",
                    session.predictedGesture ?? "-", "\(session.gestureWindowsRight)/\(session.gestureWindows)",
                    String(format: "%.3f", session.windowAccuracy),
                ] + evaluation.classNames.map { "\(session.predictions[$0] ?? 0)" }
            })
    }

    /// The confusion matrix as a heatmap: each cell's count and its share of the target's windows.
    public static func confusionSVG(_ evaluation: Evaluation) -> String {
        Heatmap(
            title: "Confusion matrix", rowTitle: "target", columnTitle: "predicted",
            rowLabels: evaluation.classNames, columnLabels: evaluation.classNames, counts: evaluation.confusion,
            scaleTitle: "share of the target's windows"
        ).svg().text
    }

    /// Columns padded to their widest cell, left-aligned, two spaces apart.
    public static func table(_ header: [String], _ rows: [[String]]) -> String {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max()! }
        return ([header] + rows).map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}

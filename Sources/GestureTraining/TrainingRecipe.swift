import GestureAnalysis
import GestureCore

/// What training takes when it is not told otherwise: the settings that leaving each person out
/// found best for people a model has not seen (docs/training.md), fitted to the data's rate.
public enum TrainingRecipe {
    /// Rotation rate, gravity and user acceleration: gravity tells how the forearm is turned.
    public static let features = [
        "rotX", "rotY", "rotZ", "gravX", "gravY", "gravZ", "accelX", "accelY", "accelZ",
    ]

    /// The other wrist, the watch turned a little twice, and two paces.
    public static let augmentations: [Augmentation] = [.mirror, .rotate, .rotate, .warp, .warp]

    /// The epochs of a model trained on its sessions alone.
    public static let epochsWithoutCopies = 30

    /// Half a second of samples, but at least the book's 20 and at most a second.
    public static func window(at rate: Double) -> Int {
        let second = max(1, Int(rate.rounded()))
        return min(max(20, Int((rate / 2).rounded())), second)
    }

    /// Each copy adds an epoch's work, so the epochs fall as copies are added: training with copies
    /// takes at most twice as long as `epochsWithoutCopies` epochs of the sessions alone.
    public static func epochs(copies: Int) -> Int {
        min(epochsWithoutCopies, max(1, 2 * epochsWithoutCopies / (copies + 1)))
    }

    /// "window 25 (0.5 s at 50 Hz)".
    public static func windowText(_ window: Int, at rate: Double) -> String {
        "window \(window) (\((Double(window) / rate).shortText) s at \(rate.shortText) Hz)"
    }
}

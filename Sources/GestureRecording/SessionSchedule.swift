import GestureCore

/// The session protocol as pure logic: given the time of each sample, which prompts are due and
/// which take and label the sample belongs to. It reads no clock; whoever drives it supplies time.
public struct SessionSchedule: Sendable {
    public let plan: SessionPlan
    private let prompts: [Prompt]
    private var nextPrompt = 0

    /// Samples within this many seconds before a boundary count as after it, so that a sample
    /// scheduled exactly on a boundary is not pushed back by floating-point rounding.
    static let boundaryTolerance = 1e-6

    public init(plan: SessionPlan) {
        self.plan = plan
        prompts = plan.prompts
    }

    /// The prompts whose time has come by `time`, each returned once.
    public mutating func prompts(through time: Double) -> ArraySlice<Prompt> {
        let first = nextPrompt
        while nextPrompt < prompts.count, prompts[nextPrompt].time <= time + Self.boundaryTolerance {
            nextPrompt += 1
        }
        return prompts[first..<nextPrompt]
    }

    /// The take a sample at `time` belongs to and its label, or nil before the first take and
    /// after the last.
    public func position(at time: Double) -> (take: Int, label: ActivityLabel)? {
        let t = time + Self.boundaryTolerance
        guard t >= plan.intro, t < plan.duration + Self.boundaryTolerance else { return nil }
        let take = min(plan.takes, Int(((t - plan.intro) / plan.cycle).rounded(.down)) + 1)
        let gesturing = t >= plan.go(take: take) && t < plan.stop(take: take)
        return (take, gesturing ? plan.gesture : .rest)
    }
}

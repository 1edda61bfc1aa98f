import CLearningKernels

/// Adam with bias-corrected moments.
struct Adam {
    var learningRate: Float
    let beta1: Float = 0.9
    let beta2: Float = 0.999
    let epsilon: Float = 1e-8
    private var firstMoment: [Float]
    private var secondMoment: [Float]
    /// beta1ᵗ and beta2ᵗ after t steps.
    private var beta1Power: Float = 1
    private var beta2Power: Float = 1

    init(learningRate: Float, parameterCount: Int) {
        self.learningRate = learningRate
        firstMoment = [Float](repeating: 0, count: parameterCount)
        secondMoment = firstMoment
    }

    /// `team`'s threads update a share of the parameters each; each parameter is updated as one
    /// thread would.
    mutating func update(
        _ parameters: UnsafeMutablePointer<Float>, gradient: UnsafePointer<Float>, team: ThreadTeam? = nil
    ) {
        beta1Power *= beta1
        beta2Power *= beta2
        let correction1 = 1 - beta1Power, correction2 = 1 - beta2Power
        let stepSize = learningRate * correction2.squareRoot() / correction1
        let epsilon = self.epsilon * correction2.squareRoot()
        let beta1 = self.beta1, beta2 = self.beta2, count = firstMoment.count
        firstMoment.withUnsafeMutableBufferPointer { m in
            secondMoment.withUnsafeMutableBufferPointer { v in
                // A parameter's update costs about as much as 16 multiply-adds.
                ThreadTeam.split(team, work: count * 16, count, step: 64) { share in
                    let first = share.lowerBound
                    gl_adam_update(
                        share.count, parameters + first, gradient + first, m.baseAddress! + first,
                        v.baseAddress! + first, beta1, beta2, stepSize, epsilon)
                }
            }
        }
    }
}

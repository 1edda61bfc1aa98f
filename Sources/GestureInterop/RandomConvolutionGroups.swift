import GestureLearning

extension RandomConvolutions {
    /// The kernels of each dilation, consecutive as the model holds them: the exports convolve
    /// each group at once.
    var dilationGroups: [(dilation: Int, kernels: Range<Int>)] {
        var groups: [(dilation: Int, kernels: Range<Int>)] = []
        for (index, kernel) in kernels.enumerated() {
            if let last = groups.last, last.dilation == kernel.dilation {
                groups[groups.count - 1].kernels = last.kernels.lowerBound..<index + 1
            } else {
                groups.append((kernel.dilation, index..<index + 1))
            }
        }
        return groups
    }
}

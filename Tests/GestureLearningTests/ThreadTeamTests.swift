import GestureMotion
import Synchronization
import Testing

@testable import GestureLearning

@Suite struct ThreadTeamTests {
    /// Each thread count splits a range into shares that cover it once, in order, in whole steps.
    @Test(arguments: 1...4)
    func sharesCoverTheRangeOnceInWholeSteps(threads: Int) {
        let team = ThreadTeam(threads: threads)
        #expect(team.threads == threads)
        for total in [0, 1, 5, 31, 32, 33, 800] {
            for step in [1, 16, 32] {
                let shares = Shares()
                team.share(total, step: step) { range in shares.record(range) }
                let ranges = shares.ranges.sorted { $0.lowerBound < $1.lowerBound }
                #expect(ranges.flatMap { Array($0) } == Array(0..<total), "\(total) in steps of \(step)")
                #expect(ranges.allSatisfy { $0.lowerBound % step == 0 })
            }
        }
    }

    /// Many jobs in a row, as a training's steps come: every part of each runs once, and what the
    /// parts wrote is seen when the job returns.
    @Test func everyPartOfEachJobRunsOnceAndIsSeenWhenItReturns() {
        let team = ThreadTeam(threads: 3)
        let slots = UnsafeMutableBufferPointer<Int>.allocate(capacity: 3)
        defer { slots.deallocate() }
        slots.initialize(repeating: -1)
        for job in 0..<20_000 {
            team.run { part, count in
                #expect(count == 3)
                slots[part] = slots[part] == job - 1 ? job : -2
            }
            #expect(slots.allSatisfy { $0 == job }, "job \(job)")
            if slots.contains(where: { $0 != job }) { break }
        }
    }

    /// The steps of a training batch that are not products, shared: the bias broadcast, the bias
    /// gradients' column sums and Adam give each value exactly as one thread does.
    @Test(arguments: [2, 3])
    func sharedElementWiseStepsGiveWhatOneThreadGives(threads: Int) {
        let team = ThreadTeam(threads: threads)
        var random = Xoshiro256(seed: 7)
        let rows = 700, columns = 803
        let matrix = (0..<rows * columns).map { _ in random.unitFloat() - 0.5 }
        let bias = (0..<columns).map { _ in random.unitFloat() }
        let gradient = (0..<100_003).map { _ in random.unitFloat() - 0.5 }
        func results(_ team: ThreadTeam?) -> (broadcast: [Float], sums: [Float], parameters: [Float]) {
            var broadcast = [Float](repeating: 0, count: rows * columns), sums = [Float](repeating: 0, count: columns)
            broadcast.withUnsafeMutableBufferPointer {
                broadcastRows(bias, to: $0.baseAddress!, rowCount: rows, columns: columns, team: team)
            }
            sums.withUnsafeMutableBufferPointer {
                columnSums(matrix, rows: rows, columns: columns, into: $0.baseAddress!, team: team)
            }
            var parameters = [Float](repeating: 0.25, count: gradient.count)
            var adam = Adam(learningRate: 0.01, parameterCount: gradient.count)
            parameters.withUnsafeMutableBufferPointer { parameters in
                for _ in 0..<3 { adam.update(parameters.baseAddress!, gradient: gradient, team: team) }
            }
            return (broadcast, sums, parameters)
        }
        let alone = results(nil), shared = results(team)
        #expect(shared.broadcast.elementsEqual(alone.broadcast), "the broadcast rows differ")
        #expect(shared.sums.elementsEqual(alone.sums), "the column sums differ")
        #expect(shared.parameters.elementsEqual(alone.parameters), "Adam's parameters differ")
        #expect(alone.parameters.allSatisfy { $0 != 0.25 }, "Adam moved every parameter")
        #expect(abs(alone.sums[5] - (0..<rows).map { matrix[$0 * columns + 5] }.reduce(0, +)) < 1e-3)
    }
}

/// The ranges the parts were given, from whichever threads ran them.
private final class Shares: Sendable {
    private let given = Mutex<[Range<Int>]>([])

    func record(_ range: Range<Int>) { given.withLock { $0.append(range) } }

    var ranges: [Range<Int>] { given.withLock { $0 } }
}

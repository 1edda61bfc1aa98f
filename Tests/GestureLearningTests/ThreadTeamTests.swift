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
}

/// The ranges the parts were given, from whichever threads ran them.
private final class Shares: Sendable {
    private let given = Mutex<[Range<Int>]>([])

    func record(_ range: Range<Int>) { given.withLock { $0.append(range) } }

    var ranges: [Range<Int>] { given.withLock { $0 } }
}

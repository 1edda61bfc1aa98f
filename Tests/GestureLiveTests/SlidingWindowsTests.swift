import GestureLive
import GestureTestSupport
import Testing

@Suite struct SlidingWindowsTests {
    /// Samples 1, 2, 3, … with two features each: (n, −n).
    private func sample(_ n: Int) -> [Float] { [Float(n), -Float(n)] }

    @Test func aWindowCompletesEveryOffsetSamplesOnceTheFirstIsFull() {
        var windows = SlidingWindows(window: 20, offset: 5, featureCount: 2)
        let slots = (1...50).map { windows.append(sample($0)) }
        #expect(slots[0..<19].allSatisfy { $0 == nil })
        #expect(slots.indices.filter { slots[$0] != nil }.map { $0 + 1 } == [20, 25, 30, 35, 40, 45, 50])
        #expect(slots.compactMap { $0 } == [0, 1, 2, 3, 0, 1, 2])
    }

    @Test func theLatestWindowIsTheNewestSamplesInOrderAcrossTheWrapAround() {
        var windows = SlidingWindows(window: 4, offset: 2, featureCount: 2)
        for n in 1...4 { _ = windows.append(sample(n)) }
        #expect(Array(windows.latest) == [1, -1, 2, -2, 3, -3, 4, -4])
        for n in 5...7 { _ = windows.append(sample(n)) }
        // The ring has wrapped: the newest four are 4…7.
        #expect(Array(windows.latest) == [4, -4, 5, -5, 6, -6, 7, -7])
        for n in 8...103 { _ = windows.append(sample(n)) }
        #expect(Array(windows.latest) == (100...103).flatMap(sample))
    }
}

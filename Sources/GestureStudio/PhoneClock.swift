import GestureSensors

/// The phone's clock (ms on the page's `performance.now()` timeline) on the host's monotonic clock
/// (s). A reading cannot arrive before it was taken, so each batch bounds the clocks' offset by its
/// arrival less its last reading's time, and the batch that came soonest after its last reading
/// bounds it best: the offset follows the smallest bound seen. The first batch anchors it, its last
/// reading taken to be as old as the batch; a later batch that bounds it lower moves it down over
/// the batch's readings, by at most a tenth of the phone's time they span, so that readings stay in
/// order with their intervals kept within 10 %. Only a disagreement of more than a batch's allowed
/// lateness, as after the page slept, anchors it again.
struct PhoneClock: Sendable {
    static let resetThreshold = DeliveryDelay.overNetwork
    /// The most the offset moves by, as a share of the phone's time the batch spans.
    static let slew = 0.1

    private var offset: Double?
    /// The last reading's time, ms on the phone's clock.
    private var lastStamp: Double?

    /// The host times of a batch's readings, stamped `stamps`, that arrived at `arrival`.
    mutating func times(of stamps: [Double], arrivedAt arrival: Double) -> [Double] {
        guard let last = stamps.last else { return [] }
        let bound = arrival - last / 1000
        defer { lastStamp = last }
        guard let offset, abs(bound - offset) <= Self.resetThreshold else {
            self.offset = bound
            return stamps.map { $0 / 1000 + bound }
        }
        let span = last - (lastStamp ?? last)
        guard span > 0, bound < offset else { return stamps.map { $0 / 1000 + offset } }
        let step = min(offset - bound, Self.slew * span / 1000)
        self.offset = offset - step
        return stamps.map { $0 / 1000 + offset - step * ($0 - last + span) / span }
    }
}

import GestureSensors

/// The phone's clock (ms on the page's `performance.now()` timeline) on the host's monotonic clock
/// (s). Anchored by the first batch to arrive: its last reading is taken to be as old as the batch,
/// so the readings keep exactly the phone's intervals and their delivery delays move nothing. Only a
/// disagreement with the host of more than a batch's allowed lateness, as after the page slept,
/// anchors it again.
struct PhoneClock: Sendable {
    static let resetThreshold = DeliveryDelay.overNetwork

    private var offset: Double?

    /// The host times of a batch's readings, stamped `stamps`, that arrived at `arrival`.
    mutating func times(of stamps: [Double], arrivedAt arrival: Double) -> [Double] {
        guard let last = stamps.last else { return [] }
        if offset == nil || abs(last / 1000 + offset! - arrival) > Self.resetThreshold {
            offset = arrival - last / 1000
        }
        return stamps.map { $0 / 1000 + offset! }
    }
}

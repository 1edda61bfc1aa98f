import GestureCore

/// An input device's frames at a fixed output rate. Input devices report on change: a device
/// that holds still may send nothing, and one may send faster than asked. Frames pass with their
/// own timestamps; after a period and a half without one, the last values are repeated on the
/// output grid; a device that keeps sending faster than the rate is thinned to one frame per tick.
/// Output times only increase.
struct ReportOnChangeResampler: Sendable {
    let period: Double
    private var lastOut: Double?
    private var held: RawSample?
    private var lastFrame: Double?
    /// The device's frame interval, smoothed.
    private var interval: Double?
    /// The next output tick, while thinning a faster device.
    private var due: Double?
    /// Output ticks filled with held values.
    private(set) var heldCount = 0

    init(rate: Double) { period = 1 / rate }

    /// The samples a frame brings: held ones for a silence before it, then itself, unless it is
    /// one a faster device sent between ticks.
    mutating func frame(_ sample: RawSample) -> [RawSample] {
        var out = quiet(until: sample.time)
        if let lastFrame {
            let gap = sample.time - lastFrame
            interval = interval.map { 0.8 * $0 + 0.2 * gap } ?? gap
        }
        lastFrame = sample.time
        held = sample
        // A frame that arrives after its tick was filled with held values (a delivery delay of more
        // than half a period) only updates what is held: the output's times never go back.
        if let lastOut, sample.time <= lastOut { return out }
        if let interval, interval < 0.8 * period {
            let tick = due ?? sample.time
            guard sample.time >= tick - period / 2 else { return out }
            due = max(tick, sample.time - period / 2) + period
        } else {
            due = nil
        }
        out.append(sample)
        lastOut = sample.time
        return out
    }

    /// The held samples for a silence of more than a period and a half, up to `now`.
    mutating func quiet(until now: Double) -> [RawSample] {
        guard var time = lastOut, let held else { return [] }
        var out: [RawSample] = []
        while now - time > 1.5 * period {
            time += period
            out.append(RawSample(time: time, acceleration: held.acceleration, rotationRate: held.rotationRate))
        }
        heldCount += out.count
        lastOut = time
        return out
    }
}

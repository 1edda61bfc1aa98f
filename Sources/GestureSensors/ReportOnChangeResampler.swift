import GestureCore

/// An input device's frames, or a phone's readings, at a fixed output rate. Input devices report on
/// change: a device that holds still may send nothing, and one may send faster than asked. Frames
/// pass with their own timestamps; a gap of more than a period and a half before a frame is filled
/// with the last values, repeated on the output grid; a device that keeps sending faster than the
/// rate is thinned to one frame per tick. Output times only increase.
///
/// A silence is filled when the frame that ends it arrives, so a frame is never overtaken by the
/// fill of a silence it ends. Only a device quiet for longer than its delivery allowance is filled
/// from the clock (`quiet(until:)`); a frame delivered later than that after its own time
/// comes too late for the output, which has passed it: it is counted in `lateFrames`, and its
/// values carry on in what is held.
public struct ReportOnChangeResampler: Sendable {
    public let period: Double
    /// How late a frame may be delivered after its own time (`DeliveryDelay`).
    public let allowance: Double
    private var lastOut: Double?
    private var held: RawSample?
    private var lastFrame: Double?
    /// The device's frame interval, smoothed.
    private var interval: Double?
    /// The next output tick, while thinning a faster device.
    private var due: Double?
    /// Output ticks filled with held values.
    public private(set) var heldCount = 0
    /// Frames that came after the output had passed their time.
    public private(set) var lateFrames = 0

    public init(rate: Double, allowance: Double = DeliveryDelay.allowance) {
        period = 1 / rate
        self.allowance = allowance
    }

    /// The samples a frame brings: held ones for a silence before it, then itself, unless it is
    /// one a faster device sent between ticks, or one that came too late.
    public mutating func frame(_ sample: RawSample) -> [RawSample] {
        var out = fill(before: sample.time)
        if let lastFrame {
            let gap = sample.time - lastFrame
            interval = interval.map { 0.8 * $0 + 0.2 * gap } ?? gap
        }
        lastFrame = sample.time
        held = sample
        if let lastOut, sample.time <= lastOut {
            lateFrames += 1
            return out
        }
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

    /// The held samples for a device that has sent nothing since well before `now` on the
    /// frames' clock: its silence up to `allowance` ago.
    public mutating func quiet(until now: Double) -> [RawSample] {
        fill(before: now - allowance)
    }

    /// Held samples on the output grid for the silence up to `time`, if it lasts more than a
    /// period and a half.
    private mutating func fill(before time: Double) -> [RawSample] {
        guard var tick = lastOut, let held else { return [] }
        var out: [RawSample] = []
        while time - tick > 1.5 * period {
            tick += period
            out.append(RawSample(time: tick, acceleration: held.acceleration, rotationRate: held.rotationRate))
        }
        heldCount += out.count
        lastOut = tick
        return out
    }
}

import FoundationEssentials
import GestureCore
import GestureMotion
import Synchronization

/// An IMU that needs no hardware: a hand holding a 16-bit accelerometer (±8 g) and gyroscope
/// (±2000 °/s) that sways a little at rest and performs each prompted gesture with its own speed,
/// amplitude and reaction time; between prompted gestures it may go about its day (`EverydayMotion`).
/// Its readings depend only on the seed, the holder, the everyday motions and the times it is read at.
public final class SimulatedSensor: GesturePerformer {
    public static let id = "sim"
    public static let accelerationRange = 8.0
    public static let rotationRateRange = 2000 * Double.pi / 180
    public static let range = SensorRange(acceleration: accelerationRange, rotationRate: rotationRateRange)

    public let info = SensorInfo(id: SimulatedSensor.id, name: "GestureLab simulated IMU", maximumRate: 1000)
    public var pacing: SensorPacing { .polled }

    private let seed: UInt64
    private let faults: SimulatedFaults
    private let hand: Hand
    private let device: DeviceErrors
    private let routine: EverydayRoutine
    private let state: Mutex<State>

    private struct State {
        var noise: SeededRandom
        var takes: [SimulatedTake] = []
        var lost = 0
        var everyday: (block: Int, bouts: [GestureKinematics])?
    }

    /// A sensor in `holder`'s hand; with `everyday` motions, the hand makes bouts of them, chosen
    /// at random, whenever no prompted take is under way.
    public init(
        seed: UInt64 = 1, holder: UserID, faults: SimulatedFaults = .none, everyday: [EverydayMotion] = []
    ) {
        self.seed = seed
        self.faults = faults
        hand = Hand(seed: seed, holder: holder)
        device = DeviceErrors(seed: seed)
        routine = EverydayRoutine(motions: everyday, seed: seed, holder: holder, hand: hand)
        state = Mutex(State(noise: SeededRandom(seed: seed, "noise", holder.rawValue)))
    }

    public func start(rate: Double) throws(SensorError) -> Double {
        try validate(rate: rate)
        return rate
    }

    public func stop() {}

    /// The readings a `dropped` fault took away.
    public var lostReadings: Int { state.withLock { $0.lost } }

    /// The takes performed so far, each with when the hand actually moved, on the sensor's clock:
    /// the truth that aligned labels are measured against.
    public var performedTakes: [(performance: Performance, motion: Range<Double>)] {
        state.withLock { $0.takes.map { ($0.performance, $0.motion.span) } }
    }

    public func perform(_ performance: Performance) {
        let take = SimulatedTake(performance, hand: hand, faults: faults, seed: seed)
        state.withLock { $0.takes.append(take) }
    }

    public func read(now t: Double) throws(SensorError) -> RawSample? {
        state.withLock { state in
            let current = state.takes.last { $0.session.contains(t) }
            if let current, current.gaps.contains(where: { $0.contains(t) }) {
                state.lost += 1
                return nil
            }
            var pose = hand.restingPose(at: t)
            current?.flip.map { pose.turn(about: [0, 1, 0], $0.evaluate(t)) }
            for take in state.takes where take.motion.isActive(at: t) {
                take.motion.apply(to: &pose, at: t)
            }
            if current == nil {
                for bout in everydayBouts(at: t, state: &state) where bout.isActive(at: t) {
                    bout.apply(to: &pose, at: t)
                }
            }
            var acceleration = pose.orientation.unrotate(pose.linearAcceleration + [0, 0, 1])
            var rotationRate = pose.rotationRate
            for axis in 0..<3 {
                acceleration[axis] += device.accelerationBias[axis] + state.noise.normal(deviation: 0.003)
                rotationRate[axis] += device.rotationBias[axis] + state.noise.normal(deviation: 0.0015)
            }
            if let dead = current?.deadAxis { acceleration[dead] = 0 }
            return RawSample(
                time: t,
                acceleration: Self.quantize(acceleration, range: Self.accelerationRange),
                rotationRate: Self.quantize(rotationRate, range: Self.rotationRateRange))
        }
    }

    /// The everyday bouts of the routine's block holding `t`, kept until a reading leaves the block.
    private func everydayBouts(at t: Double, state: inout State) -> [GestureKinematics] {
        let block = routine.block(at: t)
        if let kept = state.everyday, kept.block == block { return kept.bouts }
        let bouts = routine.bouts(inBlock: block)
        state.everyday = (block, bouts)
        return bouts
    }

    /// A 16-bit converter's steps, clipped at its range.
    private static func quantize(_ value: Vector3, range: Double) -> Vector3 {
        let step = range / 32768
        let counts = (value / step).rounded(.toNearestOrEven)
        return counts.clamped(lowerBound: Vector3(repeating: -32768), upperBound: Vector3(repeating: 32767)) * step
    }
}

/// Bias that a given unit has on every reading.
private struct DeviceErrors: Sendable {
    var accelerationBias: Vector3
    var rotationBias: Vector3

    init(seed: UInt64) {
        var random = SeededRandom(seed: seed, "device")
        accelerationBias = Vector3(
            random.normal(deviation: 0.01), random.normal(deviation: 0.01), random.normal(deviation: 0.01))
        rotationBias = Vector3(
            random.normal(deviation: 0.005), random.normal(deviation: 0.005), random.normal(deviation: 0.005))
    }
}

/// The orientation, body rotation rate and world acceleration (g) of the device at one instant.
struct Pose {
    var orientation: Quaternion
    var rotationRate: Vector3 = .zero
    var linearAcceleration: Vector3 = .zero

    /// Turns the device further about one of its own axes by an angle that changes at `rate`.
    mutating func turn(about axis: Vector3, _ angle: (value: Double, rate: Double, acceleration: Double)) {
        turn(about: axis, angle: angle.value, rate: angle.rate)
    }

    mutating func turn(about axis: Vector3, angle: Double, rate: Double) {
        let joint = Quaternion(axis: axis, angle: angle)
        orientation = orientation * joint
        rotationRate = joint.unrotate(rotationRate) + axis * rate
    }

    /// Moves the device along one of its own axes; `metres` is the displacement's second derivative.
    mutating func move(along axis: Vector3, metresPerSecondSquared: Double) {
        linearAcceleration += orientation.rotate(axis) * (metresPerSecondSquared / 9.806_65)
    }
}

/// The person holding the simulated sensor: how they hold it and how they move.
struct Hand: Sendable {
    var base: Quaternion
    var sway: [(axis: Vector3, wave: Sway)]
    var tempo: Double
    var amplitude: Double
    var reaction: Double

    init(seed: UInt64, holder: UserID) {
        var random = SeededRandom(seed: seed, "hand", holder.rawValue)
        let degree = Double.pi / 180
        base = Quaternion(
            Attitude(
                roll: random.uniform(35...65) * degree,
                pitch: random.uniform(-10...10) * degree,
                yaw: random.uniform(-180...180) * degree))
        sway = [
            (
                [1, 0, 0],
                Sway(
                    amplitude: random.uniform(0.01...0.03), frequency: random.uniform(0.15...0.35),
                    phase: random.uniform(0...6.28))
            ),
            (
                [0, 1, 0],
                Sway(
                    amplitude: random.uniform(0.01...0.03), frequency: random.uniform(0.2...0.45),
                    phase: random.uniform(0...6.28))
            ),
            (
                [0, 0, 1],
                Sway(
                    amplitude: random.uniform(0.001...0.003), frequency: random.uniform(8...11),
                    phase: random.uniform(0...6.28))
            ),
        ]
        tempo = random.uniform(0.8...1.25)
        amplitude = random.uniform(0.75...1.3)
        reaction = random.uniform(0.2...0.55)
    }

    func restingPose(at t: Double) -> Pose {
        var pose = Pose(orientation: base)
        for (axis, wave) in sway {
            let (angle, rate) = wave.evaluate(t)
            pose.turn(about: axis, angle: angle, rate: rate)
        }
        return pose
    }
}

/// One take as the simulated person performs it, faults included.
struct SimulatedTake: Sendable {
    var performance: Performance
    var session: Range<Double>
    var motion: GestureKinematics
    var flip: Burst?
    var deadAxis: Int?
    var gaps: [Range<Double>] = []

    init(_ performance: Performance, hand: Hand, faults: SimulatedFaults, seed: UInt64) {
        self.performance = performance
        let take = performance.take
        var random = SeededRandom(
            seed: seed, "take", performance.user.rawValue, performance.gesture.rawValue, "\(take)")
        session = performance.sessionStart..<performance.sessionEnd
        let reaction = max(0.12, hand.reaction + random.normal(deviation: 0.06))
        let start = performance.go + reaction
        let end = max(start + 0.3, performance.stop + reaction * random.uniform(0.8...1.3))
        var gesture = performance.gesture
        if faults.contains(.wrongGesture, take: take) {
            gesture = GestureKinematics.known.filter { $0 != gesture }.randomElement(using: &random)!
        }
        motion = GestureKinematics(
            gesture, start: start, end: end,
            tempo: hand.tempo * (1 + random.normal(deviation: 0.06)),
            amplitude: hand.amplitude * (1 + random.normal(deviation: 0.1)),
            random: &random)
        if faults.contains(.upsideDown, take: take) {
            flip = Burst(
                amplitude: .pi, frequency: 0, shape: .hold, start: session.lowerBound,
                end: session.upperBound, ramp: 0.6)
        }
        if faults.contains(.deadAxis, take: take) {
            deadAxis = Int.random(in: 0..<3, using: &random)
        }
        if faults.contains(.droppedSamples, take: take) {
            gaps = (0..<Int.random(in: 3...6, using: &random)).map { _ in
                let from = random.uniform(session.lowerBound...(session.upperBound - 0.5))
                return from..<(from + random.uniform(0.1...0.4))
            }
        }
    }
}

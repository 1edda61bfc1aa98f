import Foundation
import GestureCore

/// An angle in (−π, π].
public func wrapped(_ angle: Double) -> Double {
    let r = remainder(angle, 2 * .pi)
    return r == -.pi ? .pi : r
}

/// The smallest difference between two angles, ignoring whole turns.
public func angleDifference(_ a: Double, _ b: Double) -> Double {
    abs(remainder(a - b, 2 * .pi))
}

public func distance(_ a: Vector3, _ b: Vector3) -> Double {
    let d = a - b
    return (d * d).sum().squareRoot()
}

public func magnitude(_ a: Vector3) -> Double { (a * a).sum().squareRoot() }

public func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }

public func rms(_ values: [Double]) -> Double {
    (values.map { $0 * $0 }.reduce(0, +) / Double(values.count)).squareRoot()
}

public func standardDeviation(_ values: [Double]) -> Double {
    let m = mean(values)
    return rms(values.map { $0 - m })
}

/// The frequency in `band` (Hz) where a plain discrete Fourier transform of `values`, sampled at
/// `rate` Hz with the mean removed, is largest.
public func dominantFrequency(_ values: [Double], rate: Double, band: ClosedRange<Double> = 0.2...20) -> Double {
    let m = mean(values)
    var best = (frequency: band.lowerBound, power: -1.0)
    for frequency in stride(from: band.lowerBound, through: band.upperBound, by: 0.05) {
        var re = 0.0, im = 0.0
        for (k, value) in values.enumerated() {
            let phase = 2 * Double.pi * frequency * Double(k) / rate
            re += (value - m) * cos(phase)
            im += (value - m) * sin(phase)
        }
        if re * re + im * im > best.power { best = (frequency, re * re + im * im) }
    }
    return best.frequency
}

/// Rotation matrices, written out, to check quaternions against something independent of them.
public func rotationX(_ a: Double, _ u: Vector3) -> Vector3 {
    Vector3(u.x, cos(a) * u.y - sin(a) * u.z, sin(a) * u.y + cos(a) * u.z)
}

public func rotationY(_ a: Double, _ u: Vector3) -> Vector3 {
    Vector3(cos(a) * u.x + sin(a) * u.z, u.y, -sin(a) * u.x + cos(a) * u.z)
}

public func rotationZ(_ a: Double, _ u: Vector3) -> Vector3 {
    Vector3(cos(a) * u.x - sin(a) * u.y, sin(a) * u.x + cos(a) * u.y, u.z)
}

import FoundationEssentials
import GestureCore

/// Why a model file cannot be used.
public struct ModelFileError: Error, Equatable, CustomStringConvertible {
    public var description: String
}

/// The model file: the magic line, the format version, a JSON header describing the model, the
/// floats (normalization, then the network's parameters, then those of the parts a model may
/// have), and an FNV-1a checksum of all that.
/// Integers and floats are little-endian.
///
///     "GestureLab model\n"  UInt32 version  UInt32 n  n bytes of JSON  UInt64 m  m × Float32  UInt64 checksum
extension GestureModel {
    public static let fileFormatVersion = 1
    /// The most a model file holds of any layer, and the longest window.
    public static let largestSize = 1 << 16
    static let magic = Array("GestureLab model\n".utf8)

    /// What the JSON header holds.
    fileprivate struct Header: Codable {
        var featureNames: [String]
        var window: Int
        var windowsPerChunk: Int
        var samplingRate: Double
        var classNames: [String]
        var architecture: Architecture
        /// Absent from files written before models recorded it.
        var trainingRecord: TrainingRecord?
        var personalization: Personalization?
        /// A k-NN model's classifier but its prototypes, which follow the network's parameters.
        var neighbours: Neighbours?
        /// Absent from files written before models rejected unknown motion: those never reject.
        var rejection: RejectionHeader?
        /// Absent from files of the network alone.
        var randomConvolutions: RandomConvolutionsHeader?
    }

    /// Random convolutions but their floats: their normalization, their biases and the ridge's
    /// standardization, weights and intercept, which follow the rejection's prototypes.
    fileprivate struct RandomConvolutionsHeader: Codable {
        struct Kernel: Codable {
            var heavyTaps: [Int]
            var dilation: Int
            var channels: [Int]
            var biasCount: Int
        }

        var history: Int
        var kernels: [Kernel]
        /// Absent from files written before the ridge's scores were calibrated.
        var inverseTemperature: Float?

        var outputCount: Int { kernels.reduce(0) { $0 + $1.biasCount } }
    }

    /// A rejection but its prototypes, which follow the k-NN model's.
    fileprivate struct RejectionHeader: Codable {
        var embedding: Embedding
        var labels: [Int]
        var limits: [Float]
        var falseRejectRate: Double
        /// Absent from files written before the motion's statistics were tested.
        var motion: MotionRejection?
    }

    fileprivate struct Neighbours: Codable {
        var embedding: Embedding
        var k: Int
        var labels: [Int]
    }

    public func serialized() -> [UInt8] {
        let header = Header(
            featureNames: featureNames, window: windowing.window, windowsPerChunk: windowing.windowsPerChunk,
            samplingRate: samplingRate, classNames: classNames, architecture: architecture,
            trainingRecord: trainingRecord, personalization: personalization,
            neighbours: neighbours.map { Neighbours(embedding: $0.embedding, k: $0.k, labels: $0.labels) },
            rejection: rejection.map {
                RejectionHeader(
                    embedding: $0.embedding, labels: $0.labels, limits: $0.limits, falseRejectRate: $0.falseRejectRate,
                    motion: $0.motion)
            },
            randomConvolutions: randomConvolutions.map { classifier in
                RandomConvolutionsHeader(
                    history: classifier.convolutions.history,
                    kernels: classifier.convolutions.kernels.map {
                        .init(
                            heavyTaps: $0.heavyTaps, dilation: $0.dilation, channels: $0.channels,
                            biasCount: $0.biases.count)
                    }, inverseTemperature: classifier.ridge.inverseTemperature)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding plain strings, numbers and arrays cannot fail.
        let json = try! encoder.encode(header)
        let floats =
            normalization.mean + normalization.deviation + parameters + (neighbours?.prototypes ?? [])
            + (rejection?.prototypes ?? []) + (randomConvolutions?.floats ?? [])
        var bytes = Self.magic
        append(UInt32(Self.fileFormatVersion), to: &bytes)
        append(UInt32(json.count), to: &bytes)
        bytes += json
        append(UInt64(floats.count), to: &bytes)
        for value in floats { append(value.bitPattern, to: &bytes) }
        append(fnv1a(bytes), to: &bytes)
        return bytes
    }

    public init(serialized bytes: [UInt8]) throws(ModelFileError) {
        self = try bytes.withUnsafeBytes { bytes in
            Result { () throws(ModelFileError) in try GestureModel(serializedBytes: bytes) }
        }.get()
    }

    /// The model `bytes` hold, which need to last only as long as this runs: a model file's
    /// mapping, say.
    private init(serializedBytes bytes: UnsafeRawBufferPointer) throws(ModelFileError) {
        guard bytes.starts(with: Self.magic) else {
            throw ModelFileError(
                description: "not a GestureLab model file (it does not start with \"GestureLab model\")")
        }
        var reader = ByteReader(
            bytes: UnsafeRawBufferPointer(rebasing: bytes[..<max(bytes.count - 8, 0)]), offset: Self.magic.count)
        let version = Int(try reader.read(UInt32.self))
        guard version == Self.fileFormatVersion else {
            throw ModelFileError(
                description: "model file format \(version) is not one this GestureLab reads (\(Self.fileFormatVersion))"
            )
        }
        guard bytes.count >= Self.magic.count + 8 + 8,
            fnv1a(UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 8)]))
                == ByteReader(bytes: bytes, offset: bytes.count - 8).uncheckedUInt64
        else {
            throw ModelFileError(description: "the model file is damaged or truncated: its checksum does not match")
        }
        let headerLength = Int(try reader.read(UInt32.self))
        let header: Header
        do {
            header = try HeaderDecoder.decode(Header.self, from: try reader.bytes(headerLength))
        } catch let error as ModelFileError {
            throw error
        } catch {
            throw ModelFileError(description: "the model file's header is not readable: \(error)")
        }
        let floats = try reader.floats(count: try reader.read(UInt64.self))
        try self.init(header: header, floats: floats)
    }

    private init(header: Header, floats: LittleEndianFloats) throws(ModelFileError) {
        try header.validate()
        let sections = FloatSections(header)
        guard floats.count == sections.count else {
            throw inconsistent("\(floats.count) numbers where the architecture has \(sections.count)")
        }
        guard floats.allFinite, floats[sections.deviation].allSatisfy({ $0 > 0 }) else {
            throw inconsistent("a weight or normalization that is not a finite number")
        }
        self.init(
            featureNames: header.featureNames,
            windowing: Windowing(window: header.window, windowsPerChunk: header.windowsPerChunk),
            samplingRate: header.samplingRate, classNames: header.classNames,
            normalization: FeatureNormalization(
                mean: floats[sections.mean], deviation: floats[sections.deviation]),
            architecture: header.architecture, parameters: floats[sections.parameters],
            trainingRecord: header.trainingRecord, personalization: header.personalization,
            neighbours: header.neighbours.map { neighbours in
                NearestNeighbours(
                    embedding: neighbours.embedding, k: neighbours.k, dimension: header.prototypeDimension,
                    prototypes: floats[sections.prototypes], labels: neighbours.labels,
                    classes: header.classNames.count)
            },
            rejection: header.rejection.map { rejection in
                Rejection(
                    embedding: rejection.embedding, dimension: rejection.embedding.width(header.architecture),
                    prototypes: floats[sections.rejectionPrototypes], labels: rejection.labels,
                    limits: rejection.limits, falseRejectRate: rejection.falseRejectRate, motion: rejection.motion)
            },
            randomConvolutions: header.randomConvolutions.map { part in
                RandomConvolutionClassifier(
                    part, floats: floats[sections.randomConvolutions], features: header.featureNames.count,
                    classNames: header.classNames,
                    windowing: Windowing(window: header.window, windowsPerChunk: header.windowsPerChunk))
            })
    }

    /// Writes the file whole under a temporary name, then renames it into place.
    public func write(to path: String) throws {
        try Data(serialized()).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// Reads the file where it is mapped: its megabyte of floats is not copied on the way.
    public init(contentsOf path: String) throws {
        let model: Result<GestureModel, ModelFileError>
        do {
            model = try withContents(ofFile: path) { bytes in
                Result { () throws(ModelFileError) in try GestureModel(serializedBytes: bytes) }
            }
        } catch {
            throw ModelFileError(description: "cannot read the model file \(path): \(error.reason)")
        }
        do {
            self = try model.get()
        } catch {
            throw ModelFileError(description: "\(path): \(error.description)")
        }
    }
}

extension GestureModel.Header {
    /// Each k-NN prototype's length: the width of the embedding it is in.
    var prototypeDimension: Int { neighbours?.embedding.width(architecture) ?? 0 }

    /// Throws unless the header describes a model this GestureLab can build.
    func validate() throws(ModelFileError) {
        try validateSizes()
        try validateClasses()
        if let temporal = architecture.temporal { try validate(temporal) }
        if let neighbours { try validate(neighbours) }
        if let rejection { try validate(rejection) }
        if let randomConvolutions { try validate(randomConvolutions) }
    }

    private func validateSizes() throws(ModelFileError) {
        let sizes = [
            architecture.windowSize, architecture.classes, architecture.convolutionFilters,
            architecture.lstmUnits, architecture.denseUnits,
        ]
        guard sizes.allSatisfy({ (1...GestureModel.largestSize).contains($0) }),
            (1...GestureModel.largestSize).contains(window),
            (1...1 << 12).contains(windowsPerChunk)
        else {
            throw inconsistent("layer sizes \(sizes), window \(window), \(windowsPerChunk) windows per chunk")
        }
        // Rates a model can be trained at, from the book's 25 Hz to any IMU's fastest.
        guard samplingRate.isFinite, (0.1...100_000).contains(samplingRate) else {
            throw inconsistent("sampling rate \(samplingRate) Hz")
        }
        guard architecture.windowSize == window * featureNames.count else {
            throw inconsistent(
                "\(featureNames.count) features × window \(window) is not its input size \(architecture.windowSize)")
        }
    }

    /// A k-NN model may have classes its network does not.
    private func validateClasses() throws(ModelFileError) {
        let classes = classNames.count
        guard architecture.classes == classes || (neighbours != nil && architecture.classes < classes),
            architecture.classes >= 2
        else {
            throw inconsistent("\(classes) class names for \(architecture.classes) outputs")
        }
    }

    private func validate(_ temporal: TemporalConvolution) throws(ModelFileError) {
        guard temporal.window == window, temporal.features == featureNames.count,
            (1...temporal.window).contains(temporal.kernel), (1...1 << 12).contains(temporal.filters),
            (1...temporal.window).contains(temporal.layers), temporal.positions >= 1
        else {
            throw inconsistent(
                "\(temporal.layers) temporal convolutions of \(temporal.filters) filters of \(temporal.kernel) samples over windows of \(temporal.window) × \(temporal.features)"
            )
        }
    }

    private func validate(_ rejection: GestureModel.RejectionHeader) throws(ModelFileError) {
        guard rejection.labels.allSatisfy((0..<classNames.count).contains), rejection.limits.allSatisfy(\.isFinite),
            rejection.limits.count <= classNames.count,
            (0...1).contains(rejection.falseRejectRate)
        else {
            throw inconsistent(
                "rejection with limits \(rejection.limits) and prototypes of classes \(Set(rejection.labels).sorted())"
            )
        }
        if let motion = rejection.motion { try validate(motion) }
    }

    private func validate(_ motion: MotionRejection) throws(ModelFileError) {
        let dimension = MotionRejection.dimension(features: featureNames.count)
        let values = motion.center + motion.scale + motion.prototypes + motion.limits
        guard motion.decay > 0, motion.decay < 1, motion.center.count == dimension, motion.scale.count == dimension,
            motion.scale.allSatisfy({ $0 > 0 }), motion.prototypes.count == motion.labels.count * dimension,
            motion.labels.allSatisfy((0..<classNames.count).contains), motion.limits.count <= classNames.count,
            values.allSatisfy(\.isFinite), (0...1).contains(motion.falseRejectRate)
        else {
            throw inconsistent(
                "motion rejection of \(motion.center.count) statistics, decay \(motion.decay), limits \(motion.limits)")
        }
    }

    private func validate(_ part: GestureModel.RandomConvolutionsHeader) throws(ModelFileError) {
        let features = featureNames.count
        let kernelsFit = part.kernels.allSatisfy { kernel in
            kernel.heavyTaps.count == 3 && kernel.heavyTaps.allSatisfy((0..<9).contains)
                && Set(kernel.heavyTaps).count == 3 && kernel.dilation >= 1 && 8 * kernel.dilation < part.history
                && !kernel.channels.isEmpty && kernel.channels.allSatisfy((0..<features).contains)
                && Set(kernel.channels).count == kernel.channels.count && kernel.biasCount >= 1
        }
        guard (RandomConvolutions.leastHistory...GestureModel.largestSize).contains(part.history),
            !part.kernels.isEmpty, kernelsFit,
            part.outputCount <= GestureModel.largestSize, neighbours == nil,
            part.inverseTemperature.map({ $0.isFinite && $0 > 0 }) ?? true
        else {
            throw inconsistent(
                "\(part.kernels.count) random convolutions over \(part.history) samples of \(features) features")
        }
    }

    private func validate(_ neighbours: GestureModel.Neighbours) throws(ModelFileError) {
        guard neighbours.k >= 1, !neighbours.labels.isEmpty,
            neighbours.labels.allSatisfy((0..<classNames.count).contains)
        else {
            throw inconsistent(
                "k-NN with k \(neighbours.k) and prototypes of classes \(Set(neighbours.labels).sorted())")
        }
    }
}

/// Where a model file's floats sit: the normalization's means and deviations, the network's
/// parameters, then a k-NN model's prototypes, then the rejection's, then the random convolutions'.
private struct FloatSections {
    let mean: Range<Int>
    let deviation: Range<Int>
    let parameters: Range<Int>
    let prototypes: Range<Int>
    let rejectionPrototypes: Range<Int>
    let randomConvolutions: Range<Int>

    init(_ header: GestureModel.Header) {
        let features = header.featureNames.count
        var ranges = ConsecutiveRanges()
        mean = ranges.next(features)
        deviation = ranges.next(features)
        parameters = ranges.next(Network(header.architecture).layout.parameterCount)
        prototypes = ranges.next((header.neighbours?.labels.count ?? 0) * header.prototypeDimension)
        rejectionPrototypes = ranges.next(
            (header.rejection.map { $0.labels.count * $0.embedding.width(header.architecture) }) ?? 0)
        randomConvolutions = ranges.next(
            header.randomConvolutions.map {
                RandomConvolutionClassifier.floatCount(
                    features: features, outputs: $0.outputCount, classes: header.classNames.count)
            } ?? 0)
    }

    var count: Int { randomConvolutions.upperBound }
}

extension RandomConvolutionClassifier {
    /// Its normalization, its kernels' biases, the ridge's standardization, weights and intercept.
    fileprivate var floats: [Float] {
        normalization.mean + normalization.deviation + convolutions.kernels.flatMap(\.biases)
            + ridge.standardization.mean + ridge.standardization.deviation + ridge.weights + ridge.intercept
    }

    fileprivate static func floatCount(features: Int, outputs: Int, classes: Int) -> Int {
        2 * features + 3 * outputs + outputs * classes + classes
    }

    /// The classifier `floats` and `part` describe, in `floats`' order.
    fileprivate init(
        _ part: GestureModel.RandomConvolutionsHeader, floats: [Float], features: Int, classNames: [String],
        windowing: Windowing
    ) {
        var ranges = ConsecutiveRanges()
        let mean = ranges.next(features), deviation = ranges.next(features)
        var kernels: [RandomConvolutions.Kernel] = []
        for kernel in part.kernels {
            kernels.append(
                .init(
                    heavyTaps: kernel.heavyTaps, dilation: kernel.dilation, channels: kernel.channels,
                    biases: Array(floats[ranges.next(kernel.biasCount)])))
        }
        let ridgeMean = ranges.next(part.outputCount), ridgeDeviation = ranges.next(part.outputCount)
        let weights = ranges.next(part.outputCount * classNames.count), intercept = ranges.next(classNames.count)
        self.init(
            classNames: classNames, windowing: windowing,
            normalization: FeatureNormalization(mean: Array(floats[mean]), deviation: Array(floats[deviation])),
            convolutions: RandomConvolutions(history: part.history, channelCount: features, kernels: kernels),
            ridge: RidgeClassifier(
                classCount: classNames.count,
                standardization: FeatureNormalization(
                    mean: Array(floats[ridgeMean]), deviation: Array(floats[ridgeDeviation])),
                weights: Array(floats[weights]), intercept: Array(floats[intercept]),
                inverseTemperature: part.inverseTemperature))
    }
}

private func inconsistent(_ what: String) -> ModelFileError {
    ModelFileError(description: "the model file is inconsistent: \(what)")
}

private func append<Integer: FixedWidthInteger>(_ value: Integer, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
}

/// FNV-1a, 64 bits: enough to catch damage, which is all the checksum is for.
func fnv1a(_ bytes: some Collection<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash
}

/// Reads little-endian values in order, throwing where the bytes end.
private struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int

    mutating func bytes(_ count: Int) throws(ModelFileError) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= bytes.count - offset else {
            throw ModelFileError(description: "the model file is truncated")
        }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    mutating func read<Integer: FixedWidthInteger>(_: Integer.Type) throws(ModelFileError) -> Integer {
        try bytes(MemoryLayout<Integer>.size).reversed().reduce(0) { $0 << 8 | Integer($1) }
    }

    mutating func floats(count: UInt64) throws(ModelFileError) -> LittleEndianFloats {
        guard count <= UInt64((bytes.count - offset) / 4) else {
            throw ModelFileError(description: "the model file is truncated")
        }
        return LittleEndianFloats(bytes: try bytes(Int(count) * 4))
    }

    /// The eight bytes at the offset; the caller has checked that they are there.
    var uncheckedUInt64: UInt64 {
        UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 8]).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// A model file's floats, read from its bytes a section at a time, each straight into the array
/// that keeps it: a book-sized model is a megabyte, not worth copying twice on the way.
private struct LittleEndianFloats {
    let bytes: UnsafeRawBufferPointer

    var count: Int { bytes.count / 4 }

    subscript(range: Range<Int>) -> [Float] {
        [Float](unsafeUninitializedCapacity: range.count) { floats, initialized in
            for (index, position) in range.enumerated() { floats[index] = self[position] }
            initialized = range.count
        }
    }

    var allFinite: Bool { (0..<count).allSatisfy { self[$0].isFinite } }

    private subscript(index: Int) -> Float {
        Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self)))
    }
}

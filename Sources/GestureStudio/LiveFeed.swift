import Foundation
import GestureCore
import GestureLearning
import GestureLive
import GestureSensors
import GestureStore
import HummingbirdWebSocket
import Synchronization

import struct SystemPackage.FilePath

/// The devices the studio's live views read, and the models its detection view runs.
public struct StudioDevices: Sendable {
    public var directory: DeviceDirectory
    /// The model files `gesture studio --model` was given and those trained since, which a page
    /// names by position.
    public var models: [String] { shelf.paths.withLock { $0 } }
    let shelf: ModelShelf
    /// Whose recordings can be replayed: `replay:USER` plays the user's file of this folder.
    public var folder: RecordingsFolder

    public init(directory: DeviceDirectory, models: [String], folder: RecordingsFolder) {
        self.directory = directory
        shelf = ModelShelf(paths: models)
        self.folder = folder
    }

    struct Listing: Encodable {
        struct Device: Encodable {
            var id: String
            var name: String
        }
        struct Model: Encodable {
            var name: String
            var gestures: [String]
            /// Every class, rest included, in the order of a prediction's probabilities.
            var classes: [String]
        }
        var devices: [Device]
        var models: [Model]
    }

    /// The devices found, the phone, each phone paired, each user's replay, and the models with their gestures.
    func listing(phones: PhonePairing) throws(StudioError) -> Listing {
        let found = directory.available().sensors.map { Listing.Device(id: $0.id, name: $0.name) }
        let users: [UserID]
        do { users = try folder.users() } catch { throw StudioError(error.description) }
        let replays = users.map {
            Listing.Device(id: DeviceDirectory.replayPrefix + $0.rawValue, name: "\($0)'s recordings, replayed")
        }
        let models = models
        let described = try models.indices.map { index throws(StudioError) in
            let model = try model(index)
            return Listing.Model(
                name: FilePath(models[index]).lastComponent?.string ?? models[index],
                gestures: model.classNames.filter { $0 != ActivityLabel.rest.rawValue }, classes: model.classNames)
        }
        let paired = phones.paired.map { Listing.Device(id: $0.device, name: "\($0.name)'s page") }
        return Listing(
            devices: found + [.init(id: PhoneSensor.id, name: "the phone's page")] + paired + replays,
            models: described)
    }

    /// When `id` names a phone, its sensor and its link: `phone` the lowest-numbered phone that
    /// streams, `phone:N` phone N; once its page streams, or at once unless `waiting`. Nil when
    /// `id` names no phone.
    func openPhone(
        _ id: String, phones: PhonePairing, waiting: Bool = true
    ) async throws(StudioError) -> (sensor: any MotionSensor, link: PhoneLink)? {
        let streaming: (link: PhoneLink, source: PhoneSource)?
        if id == PhoneSensor.id {
            streaming = await phones.streamingPhone()
        } else if let number = PhoneSensor.number(inDevice: id) {
            guard let link = phones.link(number) else {
                throw StudioError("\(id): no phone \(number); the studio pairs phones 1 to \(phones.links.count)")
            }
            guard waiting || link.streamingThrough != nil else {
                throw StudioError("phone \(number) is not streaming: open the studio's phone page on it and tap Start")
            }
            streaming = await link.streamingSource().map { (link, $0) }
        } else {
            return nil
        }
        guard let (link, source) = streaming else { throw StudioError("the view closed") }
        return (directory.profiled(PhoneSensor(link: link, source: source), mounting: true), link)
    }

    /// The rate a sensor is read at, as `gesture record` reads it without `--rate`: its profile's, else 100 Hz.
    static func rate(of sensor: any MotionSensor) -> Double {
        (sensor as? ProfiledSensor)?.profile.rate ?? 100
    }

    func model(_ index: Int) throws(StudioError) -> GestureModel {
        let models = models
        guard models.indices.contains(index) else { throw StudioError("no model \(index)") }
        do {
            return try GestureModel(contentsOf: models[index])
        } catch {
            throw StudioError("\(models[index]): \(error)")
        }
    }

    /// The sensor a page names: one `directory` finds, a phone, or `replay:USER`.
    func open(_ id: String, phones: PhonePairing, holder: UserID) async throws(StudioError) -> any MotionSensor {
        if let phone = try await openPhone(id, phones: phones) { return phone.sensor }
        var device = id
        if id.hasPrefix(DeviceDirectory.replayPrefix) {
            let user: UserID
            do {
                user = try UserID(String(id.dropFirst(DeviceDirectory.replayPrefix.count)))
            } catch {
                throw StudioError("\(id): \(error)")
            }
            device = DeviceDirectory.replayPrefix + folder.recordingFile(for: user).string
        }
        do {
            return try directory.open(device, holder: holder, clock: MonotonicClock())
        } catch {
            throw StudioError("\(error)")
        }
    }
}

/// The model files the studio offers, shared by every copy of its devices: training adds to them.
final class ModelShelf: Sendable {
    let paths: Mutex<[String]>

    init(paths: [String]) { self.paths = Mutex(paths) }

    /// Adds `path` and returns its position.
    func add(_ path: String) -> Int {
        paths.withLock {
            $0.append(path)
            return $0.count - 1
        }
    }
}

/// One live view's connection: the device it names read at its rate, its readings sent in batches
/// a frame apart, and with a model, its predictions and detections. The page may ask the
/// simulated hand to perform a gesture.
struct LiveFeed {
    let devices: StudioDevices
    let phones: PhonePairing

    /// Seconds of readings gathered before a batch is sent: a page's frame at 60 frames a second.
    static let batchPeriod = 1.0 / 60
    private static let holder = try! UserID("studio")

    func run(
        device id: String, model index: Int?, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async throws {
        do {
            let model = try index.map { index throws(StudioError) in try devices.model(index) }
            if PhoneSensor.names(id) { try await send(["status": "waiting for the phone's page"], to: outbound) }
            let sensor = try await devices.open(id, phones: phones, holder: Self.holder)
            let rate = try start(sensor, model: model)
            defer { sensor.stop() }
            try await send(["status": "reading \(sensor.info.id) at \(rate.shortText) Hz"], to: outbound)
            let sampler = Sampler(sensor: sensor, clock: MonotonicClock(), rate: rate)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await listen(inbound, performer: sensor as? any GesturePerformer) }
                group.addTask { try await stream(sampler, model: model, to: outbound) }
                try await group.next()
                sampler.stop()
                group.cancelAll()
            }
        } catch let error as StudioError {
            try await fail(error.description, outbound)
        } catch let error as SensorError {
            try await fail(error.description, outbound)
        }
    }

    private func fail(_ reason: String, _ outbound: WebSocketOutboundWriter) async throws {
        try await send(["error": reason], to: outbound)
        try await outbound.close(.normalClosure, reason: nil)
    }

    private func start(_ sensor: any MotionSensor, model: GestureModel?) throws(StudioError) -> Double {
        let asked = model?.samplingRate ?? StudioDevices.rate(of: sensor)
        do {
            return try sensor.start(rate: asked)
        } catch {
            throw StudioError("\(error)")
        }
    }

    private static func detector(_ model: GestureModel, rate: Double) throws(StudioError) -> LiveDetector {
        do {
            return try LiveDetector(model: model, sensorRate: rate, settings: DetectionSettings())
        } catch {
            throw StudioError("\(error)")
        }
    }

    /// The page's requests, until it closes: `{"perform": "shake"}` asks the simulated hand for a gesture.
    private func listen(_ inbound: WebSocketInboundStream, performer: (any GesturePerformer)?) async throws {
        var take = 0
        for try await message in inbound.messages(maxSize: 1024) {
            guard case .text(let text) = message,
                let request = try? JSONDecoder().decode([String: String].self, from: Data(text.utf8)),
                let name = request["perform"], let gesture = try? ActivityLabel(name), let performer
            else { continue }
            take += 1
            let now = MonotonicClock().now()
            performer.perform(
                Performance(
                    user: Self.holder, gesture: gesture, take: take, sessionStart: now, sessionEnd: now + 4,
                    go: now + 0.5, stop: now + 3.5))
        }
    }

    private func stream(
        _ sampler: Sampler, model: GestureModel?, to outbound: WebSocketOutboundWriter
    ) async throws {
        var run = DetectionRun(
            detector: try model.map { model throws(StudioError) in try Self.detector(model, rate: sampler.rate) })
        var batch: [[Double]] = []
        var sent = 0.0
        try await sampler.listen(for: .infinity) { sensorReading in
            let sample = sensorReading.sample
            let reading = run.add(sample)
            batch.append([reading.time] + [sample.acceleration, sample.rotationRate].flatMap { [$0.x, $0.y, $0.z] })
            if let prediction = reading.prediction { try await send(["prediction": Shown(prediction)], to: outbound) }
            if let detection = reading.detection { try await send(["detection": Shown(detection)], to: outbound) }
            guard reading.time - sent >= Self.batchPeriod else { return }
            try await send(["readings": batch], to: outbound)
            batch.removeAll(keepingCapacity: true)
            sent = reading.time
        }
        // Cancelled, the page has gone: nothing more to send.
        guard !Task.isCancelled else { return }
        if !batch.isEmpty { try await send(["readings": batch], to: outbound) }
        try await send(["status": "the device's readings ended"], to: outbound)
    }

    /// A prediction as the page shows it, its time since the view started.
    private struct Shown: Encodable {
        var time: Double
        var gesture: String
        var probability: Double
        var runnerUp: String
        /// Every class's, in the model's order.
        var probabilities: [Float]

        init(_ prediction: Prediction) {
            time = prediction.time
            gesture = prediction.gesture
            probability = prediction.probability
            runnerUp = prediction.runnerUp
            probabilities = prediction.probabilities
        }
    }

    private func send(_ message: [String: some Encodable], to outbound: WebSocketOutboundWriter) async throws {
        try await outbound.write(.text(String(decoding: try JSONEncoder().encode(message), as: UTF8.self)))
    }
}

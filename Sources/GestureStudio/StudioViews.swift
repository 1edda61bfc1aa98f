import Dispatch
import Foundation
import GestureSpeech
import GestureStore
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// What the studio's browser views read and change: the recordings, and the live devices.
public struct StudioViews: Sendable {
    public var recordings: StudioRecordings
    public var devices: StudioDevices
    let training: StudioTraining
    let recording: StudioRecording

    /// - Parameter voice: how the recording view's prompts are said on this machine, as `gesture record` says them.
    public init(recordings: StudioRecordings, devices: StudioDevices, voice: Speech.Voice = .espeak) {
        self.recordings = recordings
        self.devices = devices
        training = StudioTraining(recordings: recordings, models: devices.shelf)
        recording = StudioRecording(devices: devices, folder: recordings.folder, voice: voice)
    }

    /// The largest change a page may send, in bytes.
    static let largestRequest = 4096
    /// The largest training request, which names every session ticked.
    static let largestTrainingRequest = 1 << 20

    /// The views' JSON API and the live socket, behind the router's token check.
    func addRoutes(to router: Router<BasicWebSocketRequestContext>, phones: PhonePairing) {
        router.get("/api/devices") { _, _ in
            await Self.json { () throws(StudioError) in try devices.listing(phones: phones) }
        }
        router.get("/api/phones") { _, _ in await Self.json { () throws(StudioError) in phones.paired } }
        router.get("/api/sessions") { _, _ in await Self.json { () throws(StudioError) in try recordings.entries() }
        }
        router.get("/api/dataset") { _, _ in
            await Self.json { () throws(StudioError) in try recordings.overview() }
        }
        router.get("/api/sessions/:id") { _, context in
            let id = try Self.sessionID(context)
            return await Self.json { () throws(StudioError) in try recordings.detail(of: id) }
        }
        router.get("/api/sessions/:id/windows") { request, context in
            let id = try Self.sessionID(context)
            let model = request.uri.queryParameters["model"].flatMap { Int(String($0)) } ?? 0
            return await Self.json { () throws(StudioError) in
                try recordings.windows(of: id, by: try devices.model(model))
            }
        }
        router.post("/api/sessions/:id") { request, context in
            let id = try Self.sessionID(context)
            return try await Self.decoding(
                StudioRecordings.Change.self, from: request, orRefuse: "not a change the studio makes"
            ) { change in
                await Self.json { () throws(StudioError) in
                    _ = try recordings.apply(change, to: id)
                    return try recordings.detail(of: id)
                }
            }
        }
        router.get("/api/training") { _, _ in await Self.json { () throws(StudioError) in training.progress } }
        router.post("/api/training") { request, _ in
            try await Self.decoding(
                TrainingRequest.self, from: request, upTo: Self.largestTrainingRequest,
                orRefuse: "not a training request the studio makes"
            ) { asked in
                Self.answer(
                    await Self.offServerThreads { Result { () throws(StudioRefusal) in try training.start(asked) } })
            }
        }
        router.post("/api/training/cancel") { _, _ in
            Self.answer(Result { () throws(StudioRefusal) in try training.cancel() })
        }
        router.get("/api/recording") { _, _ in await Self.json { () throws(StudioError) in recording.progress } }
        router.get("/api/recording/names") { request, _ in
            let query = request.uri.queryParameters
            let user = query["user"].map(String.init), gesture = query["gesture"].map(String.init)
            return await Self.json { () throws(StudioError) in
                NameCheck(RecordedNames(folder: recordings.folder), user: user, gesture: gesture)
            }
        }
        router.post("/api/recording") { request, _ in
            try await Self.decoding(
                RecordingRequest.self, from: request, orRefuse: "not a recording request the studio makes"
            ) { asked in
                let started: Result<RecordingProgress, StudioRefusal>
                do throws(StudioRefusal) {
                    started = .success(try await recording.start(asked, phones: phones))
                } catch {
                    started = .failure(error)
                }
                return Self.answer(started)
            }
        }
        router.post("/api/recording/stop") { _, _ in
            Self.answer(Result { () throws(StudioRefusal) in try recording.stop() })
        }
        router.post("/api/recording/decision") { request, _ in
            try await Self.decoding(
                TakeDecision.self, from: request, orRefuse: "not a decision on a take the studio makes"
            ) { decision in
                Self.answer(
                    await Self.offServerThreads {
                        Result { () throws(StudioRefusal) in try recording.decide(decision) }
                    })
            }
        }
        router.ws("/live/socket") { [devices] inbound, outbound, context in
            let query = context.request.uri.queryParameters
            let model = query["model"].flatMap { Int(String($0)) }
            try await LiveFeed(devices: devices, phones: phones).run(
                device: query["device"].map(String.init) ?? "sim", model: model, inbound: inbound, outbound: outbound)
        }
    }

    /// The session a path names: `/api/sessions/ID`, the ID percent-encoded as the page sends it.
    private static func sessionID(_ context: BasicWebSocketRequestContext) throws -> String {
        let id = try context.parameters.require("id")
        return id.removingPercentEncoding ?? id
    }

    /// The answer to the page's JSON body read as a `Body` of at most `limit` bytes, or 400 with
    /// `line` when it is not one.
    private static func decoding<Body: Decodable>(
        _ type: Body.Type, from request: Request, upTo limit: Int = largestRequest, orRefuse line: String,
        _ answer: (Body) async -> Response
    ) async throws -> Response {
        let body = try await request.body.collect(upTo: limit)
        guard let decoded = try? JSONDecoder().decode(type, from: Data(buffer: body)) else {
            return failure(.badRequest, line)
        }
        return await answer(decoded)
    }

    /// `make`'s value as JSON, made off the server's threads: it reads files and the catalog.
    /// A `StudioError` is answered 422 with its message.
    private static func json<Value: Encodable & SendableMetatype>(
        _ make: @escaping @Sendable () throws(StudioError) -> Value
    ) async -> Response {
        respond(await offServerThreads { encoded(make) })
    }

    private static func offServerThreads<Value: Sendable>(_ make: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: make()) }
        }
    }

    /// A run's progress, or why a start, a cancellation or a decision was refused, with its status.
    private static func answer(_ outcome: Result<some Encodable, StudioRefusal>) -> Response {
        switch outcome {
        case .success(let progress): respond(encoded { progress })
        case .failure(let refusal): failure(refusal.status, refusal.message)
        }
    }

    private static func respond(_ encoded: Result<Data, StudioError>) -> Response {
        switch encoded {
        case .success(let data):
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        case .failure(let error): failure(.unprocessableContent, error.description)
        }
    }

    /// Recordings may hold non-finite numbers, which `clean` finds: they travel as strings.
    private static func encoded<Value: Encodable>(_ make: () throws(StudioError) -> Value) -> Result<Data, StudioError>
    {
        do {
            let encoder = JSONEncoder()
            encoder.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
            return .success(try encoder.encode(try make()))
        } catch let error as StudioError {
            return .failure(error)
        } catch {
            return .failure(StudioError("\(error)"))
        }
    }

    private static func failure(_ status: HTTPResponse.Status, _ message: String) -> Response {
        let body = (try? JSONEncoder().encode(["error": message])) ?? Data()
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// Why a start, a cancellation or a decision on a take is refused, and the status it is answered with.
struct StudioRefusal: Error, Sendable {
    var status: HTTPResponse.Status
    var message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }
}

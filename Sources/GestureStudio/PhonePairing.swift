import GestureCore
import GestureSensors

/// The phones paired with a studio, a slot each (`PhoneLink`): a page that connects takes the
/// lowest free slot and is that phone (phone 1, phone 2, …) until it goes; a page leaving frees its
/// own slot and disturbs no other. `gesture studio` has `studioSlots`; a command reading the phone
/// has one, and refuses a second page.
public final class PhonePairing: Sendable {
    /// How many phones `gesture studio` pairs at once: a class's group, or a family's.
    public static let studioSlots = 8

    public let links: [PhoneLink]

    /// - Parameters:
    ///   - slots: how many phones may be connected at once.
    ///   - log: a file to write every reading received to, as it arrived, for tests to compare.
    ///   - notify: told of connections, disconnections and refused messages, a line each, which
    ///     names the phone when there are several slots.
    public init(
        slots: Int, log: String? = nil, notify: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(SensorError) {
        let log = try log.map { path throws(SensorError) in try ReadingLog(path: path) }
        links = (1...max(1, slots)).map { PhoneLink(number: $0, log: log, named: slots > 1, notify: notify) }
    }

    /// The first slot's phone: the only one of a command reading the phone.
    public var first: PhoneLink { links[0] }

    /// The phone numbered `number` (from 1), if there is such a slot.
    public func link(_ number: Int) -> PhoneLink? {
        links.indices.contains(number - 1) ? links[number - 1] : nil
    }

    /// Whether any page is connected.
    public var anyConnected: Bool { links.contains { $0.state != .waiting } }

    /// Waits for the lowest-numbered phone whose page streams and whose first readings have come;
    /// nil if the task is cancelled first.
    public func streamingPhone() async -> (link: PhoneLink, source: PhoneSource)? {
        while !Task.isCancelled {
            for link in links {
                if let source = link.streamingThrough { return (link, source) }
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Tells every page connected that `text` ended its part, and closes their connections.
    public func close(saying text: String) {
        for link in links { link.close(saying: text) }
    }

    /// A new connection in the lowest free slot; nil when every slot is taken.
    func connect() -> (link: PhoneLink, id: Int, toPage: AsyncStream<String>)? {
        for link in links {
            if let (id, toPage) = link.connect() { return (link, id, toPage) }
        }
        return nil
    }

    /// Why a page finding no free slot is refused.
    var refusal: String {
        links.count == 1
            ? "another phone's page is connected" : "\(links.count) phones are paired, the most the studio takes"
    }

    /// A phone as the studio's views list it.
    struct Paired: Encodable {
        /// Its number, and its device in the views: `phone:2`.
        var number: Int
        var device: String
        var name: String
        /// `connected` (Start not tapped yet) or `streaming`.
        var state: String
        var source: String?
    }

    /// The phones connected now, in the order of their numbers.
    var paired: [Paired] {
        links.compactMap { link in
            let state: String, source: PhoneSource?
            switch link.state {
            case .waiting: return nil
            case .connected: (state, source) = ("connected", nil)
            case .streaming(let streaming): (state, source) = ("streaming", streaming)
            }
            return Paired(
                number: link.number, device: PhoneSensor.device(link.number), name: link.name, state: state,
                source: source?.rawValue)
        }
    }
}

extension PhoneSensor {
    /// The device id that names phone `number` in the studio's views: `phone:2`; `phone` names the
    /// first phone that streams.
    static func device(_ number: Int) -> String { "\(id):\(number)" }

    /// Whether a device id names a phone: `phone` or `phone:N`.
    static func names(_ device: String) -> Bool { device == id || number(inDevice: device) != nil }

    /// The phone's number in a device id `phone:N`, if it is one.
    static func number(inDevice device: String) -> Int? {
        guard device.hasPrefix(id + ":") else { return nil }
        return Int(device.dropFirst(id.count + 1))
    }
}

/// Which sessions an experiment uses, and for what: the text file `gesture split` and
/// `gesture balance` write, and training and evaluation read.
///
/// One item per line, a keyword, a space and a value; `#` starts a comment line:
///
///     gesturelab-manifest 1
///     recordings recordings
///     rate 40
///     train 2026-11-21T08:33:37.685Z-1
///     validation 2026-11-21T08:40:02.120Z-3
///     test 2026-11-21T08:51:45.002Z-2
///
/// `recordings` is the folder the sessions are in, `rate` the rate in Hz to downsample them to
/// (absent: as recorded). Each `train`, `validation`, `test` or `sessions` line names one session
/// for that part, in order; a session may appear more than once (oversampling).
public struct Manifest: Equatable, Sendable {
    public enum Part: String, Sendable, CaseIterable {
        case train, validation, test
        /// A selection without a role, as `gesture balance` writes it.
        case sessions
    }

    public struct Entry: Equatable, Sendable {
        public var part: Part
        public var session: SessionID

        public init(part: Part, session: SessionID) {
            self.part = part
            self.session = session
        }
    }

    public static let formatLine = "gesturelab-manifest 1"

    public var recordings: String?
    public var rate: Double?
    public var entries: [Entry]

    public init(recordings: String? = nil, rate: Double? = nil, entries: [Entry] = []) {
        self.recordings = recordings
        self.rate = rate
        self.entries = entries
    }

    /// The sessions of one part, in the manifest's order.
    public func sessions(in part: Part) -> [SessionID] {
        entries.filter { $0.part == part }.map(\.session)
    }

    public var text: String {
        var lines = [Self.formatLine]
        if let recordings { lines.append("recordings \(recordings)") }
        if let rate { lines.append("rate \(rate)") }
        lines += entries.map { "\($0.part.rawValue) \($0.session.rawValue)" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads a manifest's text; `file` names it in errors.
    public init(text: String, file: String) throws(CSVError) {
        self.init()
        var sawFormat = false
        for (offset, line) in RecordingCSV.lines(of: text).enumerated() {
            let fail = { (reason: String) in CSVError(file: file, line: offset + 1, reason: reason) }
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard !line.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw fail("'\(line.quoted())' holds a control character")
            }
            guard sawFormat else {
                guard line == Self.formatLine else {
                    throw fail("not a GestureLab manifest: the first line must be '\(Self.formatLine)'")
                }
                sawFormat = true
                continue
            }
            guard let space = line.firstIndex(of: " ") else {
                throw fail("expected '<keyword> <value>', found '\(line.quoted())'")
            }
            let (keyword, value) = (String(line[..<space]), String(line[line.index(after: space)...]))
            switch keyword {
            case "recordings": recordings = value
            case "rate":
                guard let hz = Double(value), hz > 0, hz.isFinite else {
                    throw fail("rate '\(value.quoted())' is not a positive number")
                }
                rate = hz
            default:
                guard let part = Part(rawValue: keyword) else {
                    throw fail(
                        "unknown keyword '\(keyword)'; expected recordings, rate or one of \(Part.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                entries.append(Entry(part: part, session: SessionID(rawValue: value)))
            }
        }
        guard sawFormat else { throw CSVError(file: file, line: 1, reason: "empty, not a GestureLab manifest") }
    }
}

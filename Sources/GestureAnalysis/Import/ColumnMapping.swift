/// Which column of a long-format CSV holds what: `user=subject,session=recording,label=exercise,
/// accelX=ax,accelY=ay,accelZ=az,gyroX=wx,gyroY=wy,gyroZ=wz` (and optionally `time=t`). Without a session
/// column the file is one session; without a label column every row has the import's label.
public struct ColumnMapping: Sendable, Equatable {
    public enum Field: String, Sendable, CaseIterable {
        case user, session, label, time, accelX, accelY, accelZ, gyroX, gyroY, gyroZ

        static let required: [Field] = [.accelX, .accelY, .accelZ, .gyroX, .gyroY, .gyroZ]
        static let accelerometer: [Field] = [.accelX, .accelY, .accelZ]
        static let gyroscope: [Field] = [.gyroX, .gyroY, .gyroZ]
    }

    public var columns: [Field: String]

    public init(_ spec: String) throws(AnalysisError) {
        columns = [:]
        for item in spec.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            let known = Field.allCases.map(\.rawValue).joined(separator: ", ")
            guard parts.count == 2, let field = Field(rawValue: parts[0]) else {
                throw AnalysisError(
                    "'\(item)' is not <field>=<column>; the fields are \(known)", setting: .columnMapping)
            }
            columns[field] = parts[1]
        }
        let missing = Field.required.filter { columns[$0] == nil }
        guard missing.isEmpty else {
            throw AnalysisError(
                "no column is mapped to \(missing.map(\.rawValue).joined(separator: ", "))", setting: .columnMapping)
        }
    }

    /// The separator a one-column header seems to use instead of commas: `;` (spreadsheets where a
    /// comma is the decimal mark), a tab or `|`.
    private static func otherSeparator(in header: [String]) -> String? {
        guard header.count == 1 else { return nil }
        return [";", "\t", "|"].first { header[0].contains($0) }.map { $0 == "\t" ? "\\t" : $0 }
    }

    /// Each mapped field's position in a header; a column the header lacks is an error listing those it has.
    func positions(in header: [String], file: String) throws(AnalysisError) -> [Field: Int] {
        var positions: [Field: Int] = [:]
        for (field, column) in columns {
            guard let index = header.firstIndex(of: column) else {
                let separator = Self.otherSeparator(in: header).map {
                    "; the header looks separated by '\($0)', and import reads commas only: convert the file to commas"
                }
                throw AnalysisError(
                    "\(file) has no column '\(column)' (mapped to \(field.rawValue)); its columns are \(header.joined(separator: ", ").quoted(limit: 300))\(separator ?? "")",
                    setting: .columnMapping)
            }
            positions[field] = index
        }
        return positions
    }
}

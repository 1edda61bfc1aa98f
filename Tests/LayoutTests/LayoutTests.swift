import Foundation
import GestureTestSupport
import Testing

/// docs/layout.md's rule, held to the code: each module imports only modules above it in the
/// layout's table, and only those Package.swift gives it; nothing in Sources/ depends on Tests/.
@Suite struct LayoutTests {
    /// The toolchain's own modules, which every target may import.
    static let system: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Glibc", "Musl", "Darwin",
        "Dispatch",
        "Synchronization",
        "Testing", "XCTest",
    ]

    /// The modules of the layout's first table, bottom up.
    static func layers() throws -> [String] {
        let page = try String(contentsOfFile: Repository.path("docs/layout.md"), encoding: .utf8)
        let table = page.split(separator: "\n").drop { !$0.hasPrefix("| layer |") }.prefix { $0.hasPrefix("|") }
        return table.flatMap { $0.matches(of: /`Sources\/([A-Za-z-]+)`/).map { String($0.1) } }
    }

    /// Each target of Package.swift: the targets and products it depends on, and its folder.
    static func targets() throws -> [String: (dependencies: Set<String>, path: String)] {
        let manifest = try String(contentsOfFile: Repository.path("Package.swift"), encoding: .utf8)
        var targets: [String: (dependencies: Set<String>, path: String)] = [:]
        let kinds = /\.(target|executableTarget|testTarget|systemLibrary)\(/
        let starts = manifest.matches(of: kinds).map(\.range.lowerBound) + [manifest.endIndex]
        for (start, end) in zip(starts, starts.dropFirst()) {
            let block = manifest[start..<end]
            guard let name = block.firstMatch(of: /name: "([^"]+)"/).map({ String($0.1) }) else { continue }
            let dependencies = block.firstRange(of: "dependencies:").map { range in
                block[range.upperBound...].matches(of: /(?:^|[\[,\s(])"([^"]+)"|\.product\(name: "([^"]+)"/).map {
                    String($0.2 ?? $0.1 ?? "")
                }
            }
            let isTest = block.hasPrefix(".testTarget")
            let path = block.firstMatch(of: /path: "([^"]+)"/).map { String($0.1) }
            targets[name] = (Set(dependencies ?? []), path ?? (isTest ? "Tests/\(name)" : "Sources/\(name)"))
        }
        return targets
    }

    /// The modules a folder's Swift files import.
    static func imports(in folder: String) throws -> [(module: String, file: String)] {
        let root = Repository.path(folder)
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return try files.filter { $0.hasSuffix(".swift") }.flatMap { file in
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            return text.matches(of: /(?m)^(?:@\w+ )*(?:public |package |internal )?import (?:\w+ )?(\w+)/).map {
                (String($0.1), "\(folder)/\(file)")
            }
        }
    }

    @Test func everySourceFolderHasItsPlaceInTheLayout() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Repository.path("Sources"))
        #expect(Set(folders) == Set(try Self.layers()))
    }

    @Test func everyModuleImportsOnlyModulesAboveIt() throws {
        let layers = try Self.layers()
        #expect(layers.count > 20)
        for (index, module) in layers.enumerated() {
            for (imported, file) in try Self.imports(in: "Sources/\(module)") {
                guard let position = layers.firstIndex(of: imported) else { continue }
                #expect(position < index, "\(file) imports \(imported), which is not above \(module) in docs/layout.md")
            }
        }
    }

    @Test func everyImportIsDeclaredInPackageSwift() throws {
        let targets = try Self.targets()
        #expect(targets.count > 30)
        for (name, target) in targets where FileManager.default.fileExists(atPath: Repository.path(target.path)) {
            for (imported, file) in try Self.imports(in: target.path)
            where imported != name && !Self.system.contains(imported) {
                #expect(
                    target.dependencies.contains(imported),
                    "\(file) imports \(imported), which \(name) does not declare")
            }
        }
    }

    @Test func nothingInSourcesDependsOnATargetUnderTests() throws {
        let targets = try Self.targets()
        let underTests = Set(targets.filter { $0.value.path.hasPrefix("Tests/") }.keys)
        #expect(underTests.contains("GestureTestSupport"))
        for (name, target) in targets where target.path.hasPrefix("Sources/") {
            #expect(
                target.dependencies.isDisjoint(with: underTests),
                "\(name) depends on \(target.dependencies.intersection(underTests))")
        }
    }
}

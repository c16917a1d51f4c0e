import Foundation
import TestscopeExecution

/// The package's targets and where their sources live, for per-target roll-ups and for telling
/// test sources from the package's own. From `swift package describe`, else from the
/// `Sources/<Target>` / `Tests/<Target>` convention.
package struct PackageLayout: Sendable, Equatable {
    /// A SwiftPM target and its folder relative to the package root.
    package struct Target: Sendable, Equatable {
        package var name: String
        package var path: String
        package var isTest: Bool
        /// The package's targets it depends on directly (`swift package describe`'s `target_dependencies`);
        /// nil when not known (the folder convention), which test selection treats as "every target".
        package var dependencies: [String]?
        /// A package plugin: what it generates or checks is in no target's dependency list.
        package var isPlugin: Bool
        package init(name: String, path: String, isTest: Bool, dependencies: [String]? = nil, isPlugin: Bool = false) {
            self.name = name
            self.path = path
            self.isTest = isTest
            self.dependencies = dependencies
            self.isPlugin = isPlugin
        }
    }

    package var name: String?
    package var targets: [Target]

    package init(name: String?, targets: [Target]) {
        self.name = name
        self.targets = targets.sorted { $0.path.count > $1.path.count }
    }

    /// Folders whose files are tests (never counted by default).
    package var testDirectories: [String] {
        Array(Set(["Tests"] + targets.filter(\.isTest).map(\.path))).sorted()
    }

    /// The target owning a path relative to the package root.
    package func target(for relativePath: String) -> String? {
        for target in targets where relativePath.hasPrefix(target.path + "/") { return target.name }
        let parts = relativePath.split(separator: "/")
        if parts.count >= 3, parts[0] == "Sources" || parts[0] == "Tests" { return String(parts[1]) }
        return nil
    }

    /// The package `folder` is in, as `swift build` finds it: the nearest folder, `folder` itself or
    /// one above it, that has a `Package.swift`; nil when there is none.
    package static func root(containing folder: URL) -> URL? {
        var candidate = folder.standardizedFileURL
        while true {
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("Package.swift").path) { return candidate }
            let parent = candidate.deletingLastPathComponent()
            if parent.path == candidate.path { return nil }
            candidate = parent
        }
    }

    /// The package's name, from the test binary SwiftPM named after it (`<Name>PackageTests.xctest`):
    /// free, where asking SwiftPM costs a process and its manifest cache (measured on the Runaway
    /// fixture: `swift package dump-package` 1.5 s, `swift package describe --type json` 0.6 s).
    package static func name(ofTestBinary binary: URL) -> String? {
        let bundle = binary.pathComponents.last { $0.hasSuffix("PackageTests.xctest") }
        return bundle.map { String($0.dropLast("PackageTests.xctest".count)) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Asks SwiftPM for the layout; falls back to the convention when that is not possible. When no
    /// manifest sets a `path:`, every target lives where the convention puts it, and SwiftPM is not asked.
    /// `scratchPath` is the build folder SwiftPM reads (and locks): the run's, or the plugin's work folder,
    /// because under `swift package testscope` the package's `.build` is locked and `describe` would wait forever.
    /// `dependencies`: ask SwiftPM even then, for the targets' dependencies (test selection).
    package static func discover(root: URL, swift: URL?, scratchPath: URL? = nil, dependencies: Bool = false) -> PackageLayout {
        let manifest = root.appendingPathComponent("Package.swift")
        let manifests = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
            .filter { $0.hasPrefix("Package") && $0.hasSuffix(".swift") }
        let customPaths = manifests.contains { name in
            (try? String(contentsOf: root.appendingPathComponent(name), encoding: .utf8))?.contains("path:") ?? true
        }
        guard customPaths || dependencies else { return conventional(root: root) }
        guard let swift, FileManager.default.fileExists(atPath: manifest.path),
              let result = try? ProcessRunner.run(swift, ["package", "--package-path", root.path]
                  + (scratchPath.map { ["--scratch-path", $0.path] } ?? []) + ["describe", "--type", "json"]),
              result.succeeded, let layout = parseDescription(result.stdout)
        else { return conventional(root: root) }
        return layout
    }

    /// Parses `swift package describe --type json`.
    package static func parseDescription(_ data: Data) -> PackageLayout? {
        // The JSON may be preceded by resolution messages; start at the first brace.
        guard let brace = data.firstIndex(of: UInt8(ascii: "{")),
              let object = try? JSONSerialization.jsonObject(with: data[brace...]) as? [String: Any],
              let targets = object["targets"] as? [[String: Any]]
        else { return nil }
        let parsed: [Target] = targets.compactMap { t in
            guard let name = t["name"] as? String, let path = t["path"] as? String else { return nil }
            return Target(name: name, path: path, isTest: (t["type"] as? String) == "test",
                          dependencies: t["target_dependencies"] as? [String] ?? [], isPlugin: (t["type"] as? String) == "plugin")
        }
        return PackageLayout(name: object["name"] as? String, targets: parsed)
    }

    /// Targets from folder names under `Sources/` and `Tests/`.
    package static func conventional(root: URL) -> PackageLayout {
        var targets: [Target] = []
        for (folder, isTest) in [("Sources", false), ("Tests", true)] {
            let dir = root.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            for name in names.sorted() where !name.hasPrefix(".") {
                var isDir: ObjCBool = false
                if FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path, isDirectory: &isDir), isDir.boolValue {
                    targets.append(Target(name: name, path: "\(folder)/\(name)", isTest: isTest))
                }
            }
        }
        return PackageLayout(name: nil, targets: targets)
    }
}

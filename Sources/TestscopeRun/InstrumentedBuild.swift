import Foundation
import TestscopeExecution

/// Testscope's one build of a package's tests — coverage, atomic counter updates, `EntryPointSource`'s main —
/// shared by `run`, `run --per-test-coverage` and `flaky`, in a folder of its own (default `.build/testscope`).
package struct InstrumentedBuild: Sendable {
    package var swift: URL
    package var packageRoot: URL
    package var scratchPath: URL
    package var environment: [String: String]

    package init(swift: URL, packageRoot: URL, scratchPath: URL,
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.swift = swift
        self.packageRoot = packageRoot
        self.scratchPath = scratchPath
        self.environment = environment
    }

    /// The default folder: inside the package's `.build`, which every package already ignores. Not `.build`
    /// itself: SwiftPM does not reliably recompile every object when only the atomic-counter flag changes,
    /// so sharing it with plain `swift test` builds could mix atomic and plain objects.
    package static func defaultScratchPath(packageRoot: URL) -> URL {
        packageRoot.appendingPathComponent(".build/testscope")
    }

    /// Counters updated atomically, so parallel tests lose no increment (the counts do not depend on thread
    /// timing; measured: no slower on swift-algorithms, ~20% of the CPU in swift-nio's per-byte debug code,
    /// see docs/performance.md). Not counter promotion: LLVM 21 leaves every counter it does not promote a
    /// plain update, which gave false covered lines on BigInt.
    package static let atomicCounterArguments = ["-Xswiftc", "-Xllvm", "-Xswiftc", "-instrprof-atomic-counter-update-all"]

    /// The entry point's path inside the build folder.
    package var entryPointFile: URL { scratchPath.appendingPathComponent("testscope-entry-point/main.swift") }

    /// Writes `EntryPointSource`'s main for this package, only when it changed (so an unchanged package is
    /// not rebuilt); throws `InstrumentedBuild.ManifestError` when the package's name cannot be read.
    @discardableResult
    package func writeEntryPoint() throws -> URL {
        let manifest = (try? String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)) ?? ""
        let source = EntryPointSource.source(packageName: try packageName(), topLevel: EntryPointSource.isTopLevel(manifest: manifest))
        try FileManager.default.createDirectory(at: entryPointFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        if (try? String(contentsOf: entryPointFile, encoding: .utf8)) != source {
            try AtomicFileWriter.write(source, to: entryPointFile)
        }
        return entryPointFile
    }

    /// `swift package dump-package` gave no package name: `detail` is its first line of stderr.
    package struct ManifestError: Error, Equatable {
        package var detail: String
    }

    /// The package's name, from `swift package dump-package`; kept beside the entry point with the
    /// manifest's size and date, so an unchanged manifest is not loaded again.
    package func packageName() throws -> String {
        let manifest = packageRoot.appendingPathComponent("Package.swift")
        let attributes = try? FileManager.default.attributesOfItem(atPath: manifest.path)
        let stamp = "\(attributes?[.size] ?? 0) \((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        let cache = entryPointFile.deletingLastPathComponent().appendingPathComponent("package-name")
        if let cached = try? String(contentsOf: cache, encoding: .utf8), let newline = cached.firstIndex(of: "\n"),
           cached[..<newline] == stamp {
            return String(cached[cached.index(after: newline)...])
        }
        // In the build folder: under `swift package testscope flaky` the package's `.build` is locked and
        // dump-package there would wait forever (seen: 5 minutes, until the plugin was killed).
        let dump = try ProcessRunner.run(swift, ["package", "--package-path", packageRoot.path, "--scratch-path", scratchPath.path, "dump-package"],
                                         environment: environment)
        guard dump.succeeded, let object = try? JSONSerialization.jsonObject(with: dump.stdout) as? [String: Any],
              let name = object["name"] as? String else {
            throw ManifestError(detail: "`swift package dump-package` failed: \(dump.stderrText.split(separator: "\n").first ?? "")")
        }
        try? FileManager.default.createDirectory(at: cache.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? AtomicFileWriter.write(stamp + "\n" + name, to: cache)
        return name
    }
}

import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeHistory
import TestscopeImpact
import TestscopeProfileData
import TestscopeTestResults

/// `run --per-test-coverage --history FILE`: the test impact map of the run (TestscopeImpact), saved
/// with the run's history record; and the environment a map is recorded in and selected with.
struct ImpactRecording {
    var builder: ImpactMapBuilder

    /// The environment of a build: the toolchain's `swift --version` line, `-c`, the extra build
    /// arguments, the manifest's and the resolution's hashes.
    /// `scratchPath`: the build's folder, whose resolution `swift package resolve` writes out when the
    /// package has dependencies but no Package.resolved (an ignored one is absent in a fresh checkout, and
    /// a build with its dependencies resolved already does not always write it: the hash would flip
    /// between "" and the pins' and every selection would be a full run).
    static func environment(swift: URL, packageRoot: URL, configuration: String?, buildArguments: [String],
                            scratchPath: URL?) -> ImpactEnvironment {
        let version = (try? ProcessRunner.run(swift, ["--version"]))?.stdoutText
            .split(separator: "\n").first { $0.contains("version") }.map(String.init) ?? "unknown"
        func text(_ name: String) -> String? { try? String(contentsOf: packageRoot.appendingPathComponent(name), encoding: .utf8) }
        func hash(_ name: String) -> String { text(name).map(ImpactMap.contentHash) ?? "" }
        if text("Package.resolved") == nil, text("Package.swift")?.contains(".package(") == true {
            _ = try? ProcessRunner.run(swift, ["package", "--package-path", packageRoot.path]
                + (scratchPath.map { ["--scratch-path", $0.path] } ?? []) + ["resolve"])
        }
        return ImpactEnvironment(toolchain: version, configuration: configuration ?? "debug", buildArguments: buildArguments,
                                 manifestHash: hash("Package.swift"), resolvedHash: hash("Package.resolved"))
    }

    /// What the map needs from git before the run's results exist; nil outside a repository or before
    /// the first commit (a map without a commit can never be an ancestor's; said by the selection, which
    /// then finds no map, not here: `run`'s output stays as it was).
    static func prepare(packageRoot: URL, swift: URL, configuration: String?, buildArguments: [String], scratchPath: URL?, ignoring: [String],
                        environment: [String: String]) -> ImpactRecording? {
        guard let git = try? GitRepository.containing(packageRoot, environment: environment), let commit = (try? git.head()) ?? nil else {
            return nil
        }
        let tree = ((try? git.output(["rev-parse", "HEAD^{tree}"])) ?? nil)?.trimmingCharacters(in: .whitespacesAndNewlines)
        let dirty = (try? git.dirtyFiles(packageRoot: packageRoot, ignoring: ignoring)) ?? [:]
        let fingerprint = Self.environment(swift: swift, packageRoot: packageRoot, configuration: configuration, buildArguments: buildArguments,
                                           scratchPath: scratchPath)
        let builder = ImpactMapBuilder(packageRoot: packageRoot, commit: commit, tree: tree, dirtyFiles: dirty, environment: fingerprint) {
            try? String(contentsOf: packageRoot.appendingPathComponent($0), encoding: .utf8)
        }
        return ImpactRecording(builder: builder)
    }

    /// The map of the run: per-test coverage's contexts and the functions each entered, the results; with
    /// the per-test lines to store beside it.
    func map(mapped: [MappedFunction], coverage: PerTestCoverage, regions: PerTestRegions, entered: [Set<Int>], tests: TestRunResults) -> ImpactMap {
        var map = builder.build(mapped: mapped, contexts: coverage.contexts, entered: entered, lost: coverage.lost,
                                results: tests.results.map { ImpactMapBuilder.Result(id: $0.id, outcome: $0.outcome.rawValue, duration: $0.duration) })
        // Stored beside the map: a selective run carries the skipped tests' lines forward from it.
        (map.recording.lines, map.recording.regions) = (coverage, regions)
        return map
    }
}

extension Pipeline {
    /// After `recordHistory`: the run's impact map beside its record. The run's results are stored
    /// already, so a failure here is a warning, not a lost run.
    func saveImpactMap(_ map: ImpactMap, runUUID: String, history: URL) {
        do {
            try HistoryImpactStore(url: history, busyTimeout: historyTimeout).save(map, runUUID: runUUID)
        } catch {
            terminal.emit(.warning("the impact map was not saved (\(error.localizedDescription)); the run itself is recorded"))
        }
    }
}

import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeHistory
import TestscopeImpact
import TestscopeTestResults

/// What `run --affected` decides before running anything: per current test, run or skip and why;
/// the map and the change it was measured with (for `--why`, `--observe` and the failure labels).
struct AffectedSelection {
    var decisions: [TestDecision]
    /// The map selected with; nil for a full run without one.
    var map: ImpactMap?
    var impact: ChangeImpact
    var layout: PackageLayout
    /// Set when everything runs: the one note to print (no history, no map, another environment, a shallow clone…).
    var fullRunReason: String?
    /// Whether the map's tests are the recorded ones (false for `--diff-base` labels, whose map is empty:
    /// no test is "new" then).
    var testsKnown = true
    /// The files that differ from the map's commit (what a skipped test's carried lines move through).
    var changes: [FileChange] = []

    /// The recorded duration of the tests skipped: what the selection saves.
    var savedSeconds: Double {
        let durations = Dictionary((map?.tests ?? []).map { ($0.id, $0.duration ?? 0) }, uniquingKeysWith: { first, _ in first })
        return decisions.filter { !$0.run }.reduce(0) { $0 + (durations[$1.test] ?? 0) }
    }

    /// The label of a failing test (`--diff-base`/`--affected`): did it execute changed code?
    /// `coverage`: this run's per-test coverage.
    func label(_ test: String, coverage: PerTestCoverage?) -> FailureLabel {
        // Without a map the change was not measured: no changed line is known, so nothing is "not touched".
        guard let map else { return .unknown(fullRunReason ?? "no impact map") }
        return FailureLabel.label(test: test, coverage: coverage, impact: impact, layout: layout, isNew: testsKnown && !map.tests.contains { $0.id == test },
                                  map: testsKnown ? map : nil)
    }
}

extension Pipeline {
    /// Selects the tests of `tests` (the current list) that the change from the newest map recorded at an
    /// ancestor of `since` (HEAD by default) to the working tree can reach. Throws for a REF git does not
    /// know (`PullRequestError.unknownBase`) and a history that cannot be read (`HistoryError`); anything
    /// else that prevents selecting is a full run with its reason.
    /// `tests` nil: the map's tests (the others, new ones, run anyway); `alwaysRun`: regular expressions of test ids.
    func selectAffected(packageRoot: URL, history: URL, since ref: String?, tests: [String]?, alwaysRun: [String],
                        toolchain: Toolchain, configuration: String?, buildArguments: [String], scratchPath: URL?,
                        ignoring: [String] = []) throws -> AffectedSelection {
        let layout = PackageLayout.discover(root: packageRoot, swift: toolchain.swift, scratchPath: scratchPath, dependencies: true)
        func full(_ reason: String) -> AffectedSelection {
            AffectedSelection(decisions: SelectionRules(map: nil, impact: ChangeImpact(), layout: layout, noMapReason: reason).decide(tests ?? []),
                              map: nil, impact: ChangeImpact(), layout: layout, fullRunReason: reason)
        }
        guard history.isPostgresHistory || FileManager.default.fileExists(atPath: history.path) else { return full("no history at \(history.path) yet (this run records one)") }
        guard let git = try? GitRepository.containing(packageRoot, environment: environment) else {
            return full("the package is not in a git repository")
        }
        let ancestors = try git.ancestors(of: ref ?? "HEAD")
        // Only the package's folder is diffed: a dependency by path elsewhere could change unseen.
        if let manifest = try? String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8),
           manifest.contains(".package(path:") || manifest.contains(".package(name:") && manifest.contains("path:") {
            return full("the package depends on a local package by path, whose changes are not tracked")
        }
        let swift = toolchain.swift ?? URL(fileURLWithPath: "/usr/bin/swift")
        let fingerprint = ImpactRecording.environment(swift: swift, packageRoot: packageRoot, configuration: configuration, buildArguments: buildArguments,
                                                        scratchPath: scratchPath)
        let map: ImpactMap
        let lookup: MapLookup
        do {
            lookup = try HistoryImpactStore(url: history, busyTimeout: historyTimeout).newestMap(ancestors: ancestors, environment: fingerprint)
        } catch let error as HistoryError where history.isPostgresHistory && error.serverAway {
            // A server away (or a database not written yet) is no reason to fail the run: every test runs.
            return full(error.localizedDescription)
        }
        switch lookup {
        case let .found(found): map = found
        case let .none(reason): return full(git.isShallow ? reason + " (this is a shallow clone: fetch more history, e.g. fetch-depth: 0)" : reason)
        }
        let changes = try git.fileChanges(since: map, packageRoot: packageRoot, ignoring: ignoring)
        let impact = ChangeAnalyzer(map: map, layout: layout).analyze(changes)
        // Names only for the reasons of tests that run: the demangler is loaded once.
        let session = SwiftDemangler(library: toolchain.demangler).session()
        let names = Dictionary(impact.functions.keys.map { index in (map.functions[index].name, session.add(map.functions[index].name)) },
                               uniquingKeysWith: { first, _ in first })
        let demangled = session.finish()
        let tests = tests ?? map.tests.map(\.id)
        let patterns = alwaysRun.compactMap { try? NSRegularExpression(pattern: $0) }
        let always = Set(tests.filter { id in
            patterns.contains { $0.firstMatch(in: id, range: NSRange(id.startIndex..., in: id)) != nil }
        })
        let selection = SelectionRules(map: map, impact: impact, layout: layout, alwaysRun: always) { name in
            names[name].map { demangled.displayName(at: $0, mangled: name) } ?? name
        }
        let fullRun = impact.fullRun.flatMap { evidence -> String? in if case let .fullRun(why) = evidence.rule { return why } else { return nil } }
        return AffectedSelection(decisions: selection.decide(tests), map: map, impact: impact, layout: layout, fullRunReason: fullRun,
                                 changes: changes)
    }
}

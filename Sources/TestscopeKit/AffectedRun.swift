import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeImpact
import TestscopeTerminal
import TestscopeTestResults

extension Pipeline {
    /// `run --affected` before the build: the request with its selection, its failure labels and per-test
    /// coverage (which records the next map); nil when `--why` was answered and nothing is to run.
    /// `--diff-base REF` with per-test coverage: the failure labels alone.
    func preparingSelection(_ request: RunRequest, root: URL) throws -> RunRequest? {
        var request = request
        if let affected = request.affected, let history = request.settings.history {
            let toolchain = try request.settings.toolchain()
            let selection: AffectedSelection
            do {
                selection = try selectAffected(
                    packageRoot: root, history: history, since: affected.since, tests: nil, alwaysRun: affected.alwaysRun,
                    toolchain: toolchain, configuration: request.selection.configuration, buildArguments: request.buildArguments,
                    scratchPath: RunSetup.build(request, root: root).scratchPath,
                    ignoring: Self.writtenFolders(request, root: root) + affected.ignoreChanges)
            } catch PullRequestError.unknownBase(let ref, let shallow) {
                throw UsageError("--since \(ref): git knows no such commit in \(root.path)"
                    + (shallow ? " (a shallow clone: fetch more history, e.g. fetch-depth: 0)" : "; name a branch, tag or commit of this repository"))
            }
            if !affected.why.isEmpty {
                whyLines(affected.why, selection).forEach(terminal.printLine)
                return nil
            }
            if let reason = selection.fullRunReason {
                terminal.note("--affected: every test runs: \(reason)")
            } else {
                let skipped = selection.decisions.filter { !$0.run }
                let verb = affected.observe ? "would skip" : "skips"
                terminal.note("--affected: the change since \(selection.map?.commit.prefix(12) ?? "?") \(verb) \(skipped.count) of "
                    + "\(selection.decisions.count) recorded test(s) (about \(SelectionSkips.seconds(selection.savedSeconds)) of test time)")
                if !affected.observe {
                    request.carryForward = try selection.carriedCoverage(history: history, busyTimeout: historyTimeout)
                    let durations = Dictionary((selection.map?.tests ?? []).map { ($0.id, $0.duration) }, uniquingKeysWith: { first, _ in first })
                    request.testSelection = TestSelection(skipped: Dictionary(skipped.map {
                        ($0.test, TestSelection.Skip(reason: SelectionDecision.notAffected, recordedDuration: durations[$0.test] ?? nil))
                    }, uniquingKeysWith: { first, _ in first }))
                }
            }
            request.selectionDecisions = Dictionary(selection.decisions.map { ($0.test, SelectionDecision(selected: $0.run, reason: $0.reason)) },
                                                    uniquingKeysWith: { first, _ in first })
            request.observedSelection = affected.observe
            request.unlistedSelection = SelectionDecision(selected: true, reason: selection.fullRunReason.map { "full run: \($0)" }
                ?? "new test: not in the map recorded at \(selection.map?.commit.prefix(12) ?? "?")")
            request.perTestCoverage = true
            if request.failureLabeler == nil { request.failureLabeler = { coverage, failing in Self.labels(failing, selection, coverage) } }
        } else if let base = request.settings.pullRequest.diffBase, request.perTestCoverage, request.failureLabeler == nil {
            let selection = try labelsSince(base, packageRoot: root, request: request)
            request.failureLabeler = { coverage, failing in Self.labels(failing, selection, coverage) }
        }
        return request
    }

    /// What this run writes inside the package (`--output`, `--scratch-path`, the `--history` file), package-relative
    /// globs (escaped): not changes (a history file restored from a CI cache into the checkout is untracked, and not ignored).
    static func writtenFolders(_ request: RunRequest, root: URL) -> [String] {
        let base = root.standardizedFileURL.path + "/"
        let written = [request.settings.outputFolder(packageRoot: root).url, RunSetup.build(request, root: root).scratchPath,
                       request.settings.history] + ["-wal", "-shm", "-journal"].map { suffix in request.settings.history.map { URL(fileURLWithPath: $0.path + suffix) } }
        return written.compactMap { url in
            guard let path = url?.standardizedFileURL.path, path.hasPrefix(base) else { return nil }
            return GitRepository.escapingGlob(String(path.dropFirst(base.count)))
        }
    }

    private static func labels(_ failing: [String], _ selection: AffectedSelection, _ coverage: PerTestCoverage) -> [String: FailureLabel] {
        Dictionary(failing.map { ($0, selection.label($0, coverage: coverage)) }, uniquingKeysWith: { first, _ in first })
    }

    /// `--why`: one line per test, the decision and its reason, fitted to the terminal.
    private func whyLines(_ tests: [String], _ selection: AffectedSelection) -> [String] {
        tests.flatMap { test -> [String] in
            let decision = selection.decisions.first { $0.test == test }
                ?? selection.decisions.first { $0.test.hasSuffix("." + test) || $0.test.hasSuffix("/" + test) }
            let line: String
            if let decision {
                line = "\(decision.test): \(decision.run ? "runs" : "skipped") — \(decision.reason)"
            } else if let reason = selection.fullRunReason {
                line = "\(test): runs — full run: \(reason)"
            } else {
                line = "\(test): runs — not in the map recorded at \(selection.map?.commit.prefix(12) ?? "?") (a new test, or not a test id: "
                    + "ids are as `swift test list` prints them)"
            }
            return terminal.columns.map { ScreenText.wrap(line, width: $0) } ?? [line]
        }
    }

    /// The labels of `--diff-base REF` without `--affected`: the lines changed since the merge base of REF
    /// and HEAD, to the working tree; no map, so no test is "new" and no function body is known.
    private func labelsSince(_ base: String, packageRoot: URL, request: RunRequest) throws -> AffectedSelection {
        let git = try GitRepository.containing(packageRoot, environment: environment)
        let mergeBase = try git.changes(since: base, uncommitted: true).mergeBase
        let toolchain = try request.settings.toolchain()
        let layout = PackageLayout.discover(root: packageRoot, swift: toolchain.swift,
                                            scratchPath: RunSetup.build(request, root: packageRoot).scratchPath, dependencies: true)
        let empty = ImpactMap(commit: mergeBase, tree: nil, dirtyFiles: [:],
                              environment: ImpactEnvironment(toolchain: "", configuration: "", buildArguments: [], manifestHash: "", resolvedHash: ""), files: [], functions: [],
                              outsideTests: [], tests: [])
        let impact = ChangeAnalyzer(map: empty, layout: layout).analyze(
            try git.fileChanges(since: empty, packageRoot: packageRoot, ignoring: Self.writtenFolders(request, root: packageRoot)))
        return AffectedSelection(decisions: [], map: empty, impact: impact, layout: layout, fullRunReason: nil, testsKnown: false)
    }
}

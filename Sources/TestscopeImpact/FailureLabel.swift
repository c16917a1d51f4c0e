import TestscopeCoverage
import TestscopeTestResults

/// The labels' rule (DeFlaker's): "not touched" suggests a flaky failure, so every doubt is
/// "unknown" with its reason rather than "not touched".
extension FailureLabel {
    /// `coverage`: this run's per-test coverage (the new commit's lines); `isNew`: the test is not in
    /// the map the change was measured from.
    package static func label(test: String, coverage: PerTestCoverage?, impact: ChangeImpact, layout: PackageLayout,
                              isNew: Bool) -> FailureLabel {
        if isNew { return .unknown("new test") }
        if let full = impact.fullRun, case let .fullRun(why) = full.rule { return .unknown(why) }
        guard let coverage, coverage.contexts.contains(where: { $0.id == test }), !coverage.lost.contains(test) else {
            return .unknown("no coverage of the test in this run")
        }
        for (path, ranges) in coverage.lines(coveredBy: test) {
            guard let changed = impact.changedLines[path] else { continue }
            if let line = ranges.lazy.flatMap({ $0 }).first(where: { changed.contains($0) }) { return .touched("\(path):\(line)") }
        }
        // A changed file the report leaves out (tests' own files, by default) has no lines to look at.
        let reported = Set(coverage.files.map(\.path))
        if let hidden = impact.changedLines.keys.sorted().first(where: { !reported.contains($0) && SourceLanguage.of(path: $0) != nil }) {
            return .unknown("changed file \(hidden) is not in the coverage report")
        }
        // A resource, or a declaration whose change can redirect calls without a changed line running
        // (a removed overload): the test's lines cannot tell.
        let selection = SelectionRules(map: nil, impact: impact, layout: layout)
        if let target = SelectionRules.testTarget(of: test), let reason = selection.targetsReached()[target] { return .unknown(reason) }
        return .notTouched
    }
}

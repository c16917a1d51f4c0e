import TestscopeCoverage
import TestscopeTestResults

/// The labels' rule (DeFlaker's): "not touched" suggests a flaky failure, so every doubt is
/// "unknown" with its reason rather than "not touched".
extension FailureLabel {
    /// `coverage`: this run's per-test coverage (the new commit's lines); `isNew`: the test is not in
    /// the map the change was measured from; `map`: that map, which knows the files the report leaves out.
    package static func label(test: String, coverage: PerTestCoverage?, impact: ChangeImpact, layout: PackageLayout,
                              isNew: Bool, map: ImpactMap? = nil) -> FailureLabel {
        if isNew { return .unknown("new test") }
        if let full = impact.fullRun, case let .fullRun(why) = full.rule { return .unknown(why) }
        guard let coverage, coverage.contexts.contains(where: { $0.id == test }), !coverage.lost.contains(test) else {
            return .unknown("no coverage of the test in this run")
        }
        for (path, ranges) in coverage.lines(coveredBy: test) {
            guard let changed = impact.changedLines[path] else { continue }
            if let line = ranges.lazy.flatMap({ $0 }).first(where: { changed.contains($0) }) { return .touched("\(path):\(line)") }
        }
        // A changed file the report leaves out (tests' own files, by default) has no lines to look at here; the
        // map recorded what the test executed there: a changed body it ran, or a file it ran that changed
        // outside bodies, touched it; nothing of the file run, nothing touched (a new call into the file needs
        // a change in code the test runs, seen by its own lines or the map).
        let reported = Set(coverage.files.map(\.path))
        for hidden in impact.changedLines.keys.sorted() where !reported.contains(hidden) && SourceLanguage.of(path: hidden) != nil {
            guard let map, let recorded = map.tests.first(where: { $0.id == test }), recorded.usable else {
                return .unknown("changed file \(hidden) is not in the coverage report")
            }
            // A file the map has no code of (new, or declarations only) was run by no test when recorded: code
            // added to it reaches a test through a declaration, which the target's rule below says.
            guard let file = map.files.firstIndex(of: hidden) else { continue }
            let ran = recorded.functionIndexes.filter { map.functions[$0].file == file }
            if let (_, evidence) = impact.functions.filter({ ran.contains($0.key) }).min(by: { $0.key < $1.key }) { return .touched(evidence.place) }
            if !ran.isEmpty, let evidence = impact.files[hidden] { return .touched(evidence.place) }
        }
        // A resource, or a declaration whose change can redirect calls without a changed line running
        // (a removed overload): the test's lines cannot tell.
        let selection = SelectionRules(map: nil, impact: impact, layout: layout)
        if let target = SelectionRules.testTarget(of: test), let reason = selection.targetsReached()[target] { return .unknown(reason) }
        return .notTouched
    }
}

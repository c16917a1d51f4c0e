import TestscopeCoverage
import TestscopeReports

/// The terminal's lines for diff coverage and the baseline comparison.
enum PullRequestText {
    /// `Diff coverage against origin/main (merge base 1a2b3c4d5e6f): lines …, regions …`, then one line per changed file.
    static func diff(_ diff: DiffCoverage) -> [String] {
        let against = "Diff coverage against \(diff.base) (merge base \(diff.mergeBase.prefix(12))\(diff.includesUncommitted ? ", with uncommitted changes" : ""))"
        var lines: [String] = []
        if !diff.hasExecutableChanges {
            lines.append("\(against): no executable lines changed (\(diff.changedLines) changed lines in \(diff.files.count) measured files); the diff gates pass")
        } else {
            lines.append("\(against): lines \(Format.percent(diff.lines)) (\(diff.lines.covered)/\(diff.lines.total), \(diff.partialLines) partial, \(diff.uncoveredLines) uncovered), "
                + "regions \(Format.percent(diff.regions)) (\(diff.regions.covered)/\(diff.regions.total))")
            for file in diff.files where file.lines.total > 0 {
                var line = "  \(file.path)\(file.renamedFrom.map { " (renamed from \($0))" } ?? ""): \(file.lines.covered)/\(file.lines.total) changed lines"
                if !file.uncoveredLines.isEmpty { line += "; uncovered \(Format.ranges(file.uncoveredLines))" }
                if !file.partialLines.isEmpty { line += "; partial \(Format.ranges(file.partialLines))" }
                lines.append(line)
            }
        }
        if !diff.unmeasuredFiles.isEmpty {
            let shown = diff.unmeasuredFiles.prefix(5).joined(separator: ", ")
            lines.append("  not measured (no coverage data): \(shown)\(diff.unmeasuredFiles.count > 5 ? " and \(diff.unmeasuredFiles.count - 5) more" : "")")
        }
        return lines
    }

    /// `Baseline (commit 1a2b3c4d5e6f): lines 80.00% → 78.00%`, then what regressed per file.
    static func baseline(_ comparison: BaselineComparison) -> [String] {
        var lines = ["Baseline\(comparison.commit.map { " (commit \($0.prefix(12)))" } ?? ""): lines \(Format.percent(comparison.baselineLines)) → \(Format.percent(comparison.currentLines))"
            + (comparison.tolerance > 0 ? " (tolerance \(Format.fixed(comparison.tolerance, decimals: 2)) points)" : "")
            + (comparison.passed ? "; no regression" : "")]
        for r in comparison.regressions {
            let was = r.baselinePath == nil ? "new file" : "uncovered lines \(r.uncoveredBefore) →"
            let renamed = r.baselinePath.flatMap { $0 == r.path ? nil : " (was \($0))" } ?? ""
            lines.append("  \(r.path)\(renamed): \(was) \(r.current.missed) uncovered (+\(r.addedUncovered))")
        }
        return lines
    }

    /// The gate line of a diff or baseline threshold.
    static func gateMessage(_ failure: CoverageGate.Failure) -> String {
        let where_ = failure.lineRanges.prefix(10).map { "\($0.path):\(Format.ranges($0.ranges))" }.joined(separator: ", ")
            + (failure.lineRanges.count > 10 ? " and \(failure.lineRanges.count - 10) more files" : "")
        switch failure.threshold {
        case .diffUncoveredLines:
            return "diff gate failed: \(Int(failure.measured ?? 0)) uncovered changed lines > \(Int(failure.required)) (--max-uncovered-diff-lines); uncovered: \(where_)"
        case .diffLines, .diffRegions:
            let option = failure.threshold == .diffLines ? "--fail-under-diff" : "--fail-under-diff-regions"
            let measured = failure.measured.map { Format.fixed($0, decimals: 2) + "%" } ?? "–"
            let label = failure.threshold == .diffLines ? "uncovered" : "uncovered or partial"
            return "diff gate failed: \(failure.metric) \(measured) < \(Format.fixed(failure.required, decimals: 2))% (\(option)); \(label): \(where_)"
        default:
            let files = failure.files.map { "\($0.path) (\($0.ratio.missed) uncovered)" }.joined(separator: ", ")
            let measured = failure.measured.map { Format.fixed($0, decimals: 2) + "%" } ?? "–"
            return "baseline gate failed: lines \(measured) (allowed down to \(Format.fixed(failure.required, decimals: 2))%)"
                + (files.isEmpty ? "" : "; more uncovered lines in: \(files)")
        }
    }
}

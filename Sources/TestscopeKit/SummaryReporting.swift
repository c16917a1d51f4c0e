import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeReports

/// The last step of `run`, `report` and `flaky`: `summary.md` (with `--format markdown`) and, on
/// GitHub Actions, the same summary appended to `$GITHUB_STEP_SUMMARY` — one renderer, two limits.
struct SummaryReporting {
    var outputs: Outputs
    var terminal: Terminal
    var environment: [String: String]

    /// Writes what the outcome holds; adds `summary.md` to `outcome.written`.
    func write(_ outcome: inout Outcome, packageRoot: URL, output: OutputFolder) throws {
        var content = SummaryContent(coverage: outcome.coverage, tests: outcome.tests, flaky: outcome.flaky,
                                     gateFailures: outcome.gateFailures.map(CoverageReporting.gateMessage))
        content.diff = outcome.coverage?.diff.map(Self.summary)
        content.baseline = outcome.coverage?.baseline.map(Self.summary)
        guard !content.isEmpty else { return }
        if outputs.writesSummary {
            let path = try MarkdownSummary(packageRoot: packageRoot.path).write(content, into: output)
            outcome.written.append(path)
            terminal.note("Markdown summary: \(path)")
        }
        if environment["GITHUB_ACTIONS"] == "true", let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty {
            let text = try MarkdownSummary(packageRoot: packageRoot.path, limit: MarkdownSummary.stepSummaryLimit).renderString(content)
            // GitHub owns this file and other steps' summaries are in it: appended, not replaced.
            guard let handle = FileHandle(forWritingAtPath: path) else {
                terminal.emit(.warning("cannot open $GITHUB_STEP_SUMMARY (\(path)) for writing; the step summary is left out"))
                return
            }
            defer { try? handle.close() }
            // The throwing write: Foundation's `write(_:)` traps on a failed write (a full disk: status 132).
            do {
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(text.utf8))
            } catch {
                terminal.emit(.warning("cannot write $GITHUB_STEP_SUMMARY (\(path)): \(SystemErrorText.reason(error)); the step summary is left out"))
            }
        }
    }

    /// `--diff-base`'s result as the summary shows it (paths relative to the package, as elsewhere).
    static func summary(_ diff: DiffCoverage) -> DiffCoverageSummary {
        DiffCoverageSummary(base: diff.base, lines: diff.lines, regions: diff.regions, files: diff.files.map {
            DiffCoverageSummary.ChangedFile(path: $0.path, lines: $0.lines, uncovered: $0.uncoveredLines, partial: $0.partialLines)
        })
    }

    /// `--baseline`'s verdict: the baseline's line total (the file keeps lines and regions; the
    /// summary compares lines) and the files whose uncovered lines grew.
    static func summary(_ baseline: BaselineComparison) -> BaselineChange {
        var totals = CoverageSummary()
        totals.lines = baseline.baselineLines
        return BaselineChange(totals: totals, regressions: baseline.regressions.map { ($0.path, $0.uncoveredBefore, $0.current.missed) })
    }
}

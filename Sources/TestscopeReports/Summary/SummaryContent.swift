import TestscopeCoverage
import TestscopeFlakiness
import TestscopeTestResults

/// What the Markdown summary (`summary.md`, the GitHub step summary) shows: whatever the command
/// has. The diff-coverage and baseline parts are nil without `--diff-base` and `--baseline` (`SummaryReporting` fills them);
/// their view models are here so that the summary's layout and its size limit stay in one renderer.
package struct SummaryContent: Sendable {
    package var coverage: CoverageReport?
    package var tests: TestRunResults?
    package var flaky: FlakyReport?
    /// The gate's failure messages, as printed on stderr.
    package var gateFailures: [String] = []
    /// The totals of the baseline, to show the change next to each total (`--baseline`).
    package var baseline: BaselineChange?
    /// Coverage of the changed lines (`--diff-base`).
    package var diff: DiffCoverageSummary?

    package init(coverage: CoverageReport? = nil, tests: TestRunResults? = nil, flaky: FlakyReport? = nil, gateFailures: [String] = []) {
        self.coverage = coverage
        self.tests = tests
        self.flaky = flaky
        self.gateFailures = gateFailures
    }

    package var isEmpty: Bool { coverage == nil && tests == nil && flaky == nil }
}

/// The baseline's totals and the files whose uncovered line count grew, as the summary shows them.
package struct BaselineChange: Sendable {
    package var totals: CoverageSummary
    /// Files whose uncovered line count grew: path (relative), uncovered lines then and now.
    package var regressions: [(path: String, before: Int, now: Int)]

    package init(totals: CoverageSummary, regressions: [(path: String, before: Int, now: Int)] = []) {
        self.totals = totals
        self.regressions = regressions
    }
}

/// Diff coverage as the summary shows it: the totals over changed executable lines and the worst files.
package struct DiffCoverageSummary: Sendable {
    /// A changed file: its changed executable lines and the changed line ranges that did not (fully) run.
    package struct ChangedFile: Sendable {
        package var path: String
        package var lines: CoverageRatio
        package var uncovered: [ClosedRange<UInt32>]
        package var partial: [ClosedRange<UInt32>]

        package init(path: String, lines: CoverageRatio, uncovered: [ClosedRange<UInt32>], partial: [ClosedRange<UInt32>] = []) {
            self.path = path
            self.lines = lines
            self.uncovered = uncovered
            self.partial = partial
        }
    }

    /// The base the diff was taken against, as the user named it.
    package var base: String
    /// Changed executable lines: covered counts covered and partial lines.
    package var lines: CoverageRatio
    /// Regions that start on changed lines.
    package var regions: CoverageRatio
    package var files: [ChangedFile]

    package init(base: String, lines: CoverageRatio, regions: CoverageRatio, files: [ChangedFile]) {
        self.base = base
        self.lines = lines
        self.regions = regions
        self.files = files
    }
}

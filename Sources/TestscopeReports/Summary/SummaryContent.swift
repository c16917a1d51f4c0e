import TestscopeCoverage
import TestscopeFlakiness
import TestscopeTestResults

/// What the Markdown summary (`summary.md`, the GitHub step summary) shows: whatever the command
/// has. The diff-coverage and baseline parts are nil without `--diff-base` and `--baseline` (`SummaryReporting` fills them);
/// their view models are here so that the summary's layout and its size limit stay in one renderer.
public struct SummaryContent: Sendable {
    public var coverage: CoverageReport?
    public var tests: TestRunResults?
    public var flaky: FlakyReport?
    /// The gate's failure messages, as printed on stderr.
    public var gateFailures: [String] = []
    /// The totals of the baseline, to show the change next to each total (`--baseline`).
    public var baseline: BaselineChange?
    /// Coverage of the changed lines (`--diff-base`).
    public var diff: DiffCoverageSummary?

    public init(coverage: CoverageReport? = nil, tests: TestRunResults? = nil, flaky: FlakyReport? = nil, gateFailures: [String] = []) {
        self.coverage = coverage
        self.tests = tests
        self.flaky = flaky
        self.gateFailures = gateFailures
    }

    public var isEmpty: Bool { coverage == nil && tests == nil && flaky == nil }
}

/// The baseline's totals and the files whose uncovered line count grew, as the summary shows them.
public struct BaselineChange: Sendable {
    public var totals: CoverageSummary
    /// Files whose uncovered line count grew: path (relative), uncovered lines then and now.
    public var regressions: [(path: String, before: Int, now: Int)]

    public init(totals: CoverageSummary, regressions: [(path: String, before: Int, now: Int)] = []) {
        self.totals = totals
        self.regressions = regressions
    }
}

/// Diff coverage as the summary shows it: the totals over changed executable lines and the worst files.
public struct DiffCoverageSummary: Sendable {
    /// A changed file: its changed executable lines and the changed line ranges that did not (fully) run.
    public struct ChangedFile: Sendable {
        public var path: String
        public var lines: CoverageRatio
        public var uncovered: [ClosedRange<UInt32>]
        public var partial: [ClosedRange<UInt32>]

        public init(path: String, lines: CoverageRatio, uncovered: [ClosedRange<UInt32>], partial: [ClosedRange<UInt32>] = []) {
            self.path = path
            self.lines = lines
            self.uncovered = uncovered
            self.partial = partial
        }
    }

    /// The base the diff was taken against, as the user named it.
    public var base: String
    /// Changed executable lines: covered counts covered and partial lines.
    public var lines: CoverageRatio
    /// Regions that start on changed lines.
    public var regions: CoverageRatio
    public var files: [ChangedFile]

    public init(base: String, lines: CoverageRatio, regions: CoverageRatio, files: [ChangedFile]) {
        self.base = base
        self.lines = lines
        self.regions = regions
        self.files = files
    }
}

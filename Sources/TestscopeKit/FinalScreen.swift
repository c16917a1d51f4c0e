import Foundation
import TestscopeExecution
import TestscopeReports
import TestscopeTerminal

/// The last thing `run` and `report` print (`ResultScreen`): the verdict — tests, coverage totals, the
/// pull-request figures and the gate's lines — then the failures, coverage by target and the worst
/// files, and where the reports are, on one line. `--quiet` keeps the verdict and the failures.
struct FinalScreen {
    var terminal: Terminal
    var settings: ReportSettings
    /// `run --quiet` printed each failure as it happened: the screen does not repeat them.
    var failuresShownLive = false

    func show(_ outcome: Outcome, packageRoot: URL, output: OutputFolder) throws {
        let screen = ResultScreen(terminal: terminal, packageRoot: packageRoot.path, files: settings.showFiles,
                                  showMissing: settings.showMissing)
        terminal.printLine("")
        for line in screen.verdict(tests: outcome.tests, coverage: outcome.coverage) { terminal.printLine(line) }
        if let report = outcome.coverage {
            for line in (report.diff.map(PullRequestText.diff) ?? []) + (report.baseline.map(PullRequestText.baseline) ?? []) {
                terminal.printLine(line)
            }
            // A selective run's coverage is the full suite's: which part of it was carried forward.
            for line in report.carriedForward.map({ ScreenText.wrap($0.sentence, width: terminal.width) }) ?? [] { terminal.printLine(line) }
        }
        for failure in outcome.gateFailures { terminal.diagnosticLine(CoverageReporting.gateMessage(failure)) }
        if let tests = outcome.tests {
            let failures = try screen.failures(tests)
            if !failures.isEmpty, !(terminal.quiet && (!tests.hasFailures || failuresShownLive)) { terminal.print("\n" + failures) }
        }
        guard !terminal.quiet else { return }
        if let report = outcome.coverage {
            let tables = screen.coverageTables(report)
            if !tables.isEmpty { terminal.print("\n" + tables.map { $0 + "\n" }.joined()) }
        }
        if let line = screen.reportsLine(written: outcome.written, folder: output.url.path, testsOnly: outcome.coverage == nil) {
            terminal.printLine("\n" + line)
        }
    }
}

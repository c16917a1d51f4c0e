import Foundation
import TestscopeExecution
import TestscopeReports

/// The last step of `run`, `report` and `flaky`: `summary.md` (with `--format markdown`) and, on
/// GitHub Actions, the same summary appended to `$GITHUB_STEP_SUMMARY` — one renderer, two limits.
struct SummaryReporting {
    var formats: [ReportFormat]
    var terminal: Terminal
    var environment: [String: String]

    /// Writes what the outcome holds; adds `summary.md` to `outcome.written`.
    func write(_ outcome: inout Outcome, packageRoot: URL, output: OutputFolder) throws {
        // `content.baseline` and `content.diff` stay nil until `--baseline` and `--diff-base` fill them in here.
        let content = SummaryContent(coverage: outcome.coverage, tests: outcome.tests, flaky: outcome.flaky,
                                     gateFailures: outcome.gateFailures.map(CoverageReporting.gateMessage))
        guard !content.isEmpty else { return }
        if formats.contains(.markdown) {
            let path = try MarkdownSummary(packageRoot: packageRoot.path).write(content, into: output)
            outcome.written.append(path)
            terminal.note("Markdown summary: \(path)")
        }
        if environment["GITHUB_ACTIONS"] == "true", let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty {
            let text = try MarkdownSummary(packageRoot: packageRoot.path, limit: MarkdownSummary.stepSummaryLimit).renderString(content)
            // GitHub owns this file and other steps' summaries are in it: appended, not replaced.
            guard let handle = FileHandle(forWritingAtPath: path) else {
                terminal.warning("cannot open $GITHUB_STEP_SUMMARY (\(path)) for writing; the step summary is left out")
                return
            }
            handle.seekToEndOfFile()
            handle.write(Data(text.utf8))
            try? handle.close()
        }
    }
}

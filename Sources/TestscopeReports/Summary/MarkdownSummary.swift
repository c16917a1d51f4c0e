import TestscopeCoverage
import TestscopeExecution
import TestscopeFlakiness
import TestscopeTestResults

/// `summary.md`, and the GitHub step summary: coverage totals (with the change against a baseline),
/// diff coverage, the gate, test failures, flaky findings and the worst files, most important first,
/// cut at a line boundary with a note when longer than `limit` (UTF-8 bytes, so never more characters).
package struct MarkdownSummary: ReportRenderer {
    /// A pull-request or commit comment (python-coverage-comment-action's README; check-spelling).
    package static let commentLimit = 65_536
    /// `$GITHUB_STEP_SUMMARY`: larger uploads are refused by the runner.
    package static let stepSummaryLimit = 1_048_576

    package var fileName: String { "summary.md" }
    package var limit: Int
    package var paths: PathDisplay
    /// Rows of the worst-files and failure tables.
    package var rows: Int

    package init(packageRoot: String, limit: Int = commentLimit, rows: Int = 10) {
        self.paths = PathDisplay(root: packageRoot)
        self.limit = limit
        self.rows = rows
    }

    package func render<Output: TextOutput>(_ content: SummaryContent, to out: inout Output) throws {
        try out.write(Self.bounded(markdown(content), limit: limit))
    }

    /// The whole summary, before the limit.
    func markdown(_ content: SummaryContent) -> String {
        var md = "### Testscope\n\n"
        if let coverage = content.coverage { md += totals(coverage.totals, baseline: content.baseline?.totals) }
        // A selective run's report is the full suite's: which part of it was carried forward.
        if let carried = content.coverage?.carriedForward { md += MarkdownText.inline(carried.sentence) + "\n\n" }
        if !content.gateFailures.isEmpty {
            md += "**Coverage gate failed:**\n\n" + content.gateFailures.map { "- " + MarkdownText.inline($0) + "\n" }.joined() + "\n"
        }
        if let diff = content.diff { md += diffSection(diff) }
        if let regressions = content.baseline?.regressions, !regressions.isEmpty {
            md += "**Files with more uncovered lines than the baseline:**\n\n| file | uncovered before | uncovered now |\n| --- | ---: | ---: |\n"
            for r in regressions { md += "| \(MarkdownText.cell(r.path)) | \(r.before) | \(r.now) |\n" }
            md += "\n"
        }
        if let tests = content.tests { md += testsSection(tests) }
        if let flaky = content.flaky { md += flakySection(flaky) }
        if let coverage = content.coverage { md += worstFiles(coverage) }
        return md
    }

    func totals(_ totals: CoverageSummary, baseline: CoverageSummary?) -> String {
        var md = baseline == nil ? "| coverage | covered | total | % |\n| --- | ---: | ---: | ---: |\n"
            : "| coverage | covered | total | % | change |\n| --- | ---: | ---: | ---: | ---: |\n"
        let metrics: [(String, KeyPath<CoverageSummary, CoverageRatio>)] = [("Lines", \.lines), ("Functions", \.functions), ("Regions", \.regions)]
        for (name, key) in metrics {
            let ratio = totals[keyPath: key]
            md += "| \(name) | \(ratio.covered) | \(ratio.total) | \(Format.percent(ratio)) |"
            if let baseline { md += " \(Self.change(ratio, from: baseline[keyPath: key])) |" }
            md += "\n"
        }
        return md + "\n"
    }

    /// `+1.25 pp`, `-0.50 pp`, `±0.00 pp`, or `–` when either side has nothing to measure.
    static func change(_ now: CoverageRatio, from before: CoverageRatio) -> String {
        guard let a = now.percent, let b = before.percent else { return "–" }
        let delta = a - b
        let text = Format.fixed(abs(delta), decimals: 2)
        return (text == "0.00" ? "±" : delta > 0 ? "+" : "-") + text + " pp"
    }

    func diffSection(_ diff: DiffCoverageSummary) -> String {
        var md = "**Changed lines** (against \(MarkdownText.inline(diff.base))): "
        guard diff.lines.total > 0 else { return md + "no executable lines changed.\n\n" }
        md += "lines \(Format.percent(diff.lines)) (\(diff.lines.covered)/\(diff.lines.total)), regions \(Format.percent(diff.regions)) (\(diff.regions.covered)/\(diff.regions.total))\n\n"
        let worst = diff.files.filter { !$0.uncovered.isEmpty || !$0.partial.isEmpty }
            .sorted { ($0.lines.percent ?? 100, $0.path) < ($1.lines.percent ?? 100, $1.path) }
        guard !worst.isEmpty else { return md }
        md += "| changed file | lines | uncovered | partial |\n| --- | ---: | --- | --- |\n"
        for file in worst.prefix(rows) {
            md += "| \(MarkdownText.cell(file.path)) | \(Format.percent(file.lines)) | \(Format.ranges(file.uncovered)) | \(Format.ranges(file.partial)) |\n"
        }
        if worst.count > rows { md += "\n\(worst.count - rows) more changed files with uncovered lines are in the full reports.\n" }
        return md + "\n"
    }

    func testsSection(_ tests: TestRunResults) -> String {
        var md = "**Tests:** \(tests.summaryLine)\n\n"
        let skips = SelectionSkips.grouped(tests.notSelected)
        if !skips.isEmpty { md += skips.map { MarkdownText.cell($0.line) }.joined(separator: "  \n") + "\n\n" }
        md += flakyTests(tests)
        let failing = tests.results.filter { $0.outcome.isFailure }
        guard !failing.isEmpty else { return md }
        // The label column only when the run labelled its failures (`run` with a failure labeler).
        let labelled = !tests.failureLabels.isEmpty
        md += labelled ? "| failed test | outcome | label | where | message |\n| --- | --- | --- | --- | --- |\n"
            : "| failed test | outcome | where | message |\n| --- | --- | --- | --- |\n"
        for r in failing.prefix(rows) {
            let place = r.primaryLocation.map { "\(paths.relative($0.file)):\($0.line)" } ?? ""
            let label = labelled ? " \(MarkdownText.cell(tests.failureLabels[r.id]?.text ?? "")) |" : ""
            md += "| \(MarkdownText.cell(r.id + (r.arguments.map { " [\($0)]" } ?? ""))) | \(r.outcome.rawValue) |\(label) \(MarkdownText.cell(place)) | \(MarkdownText.cell(Self.firstLine(r))) |\n"
        }
        if failing.count > rows { md += "\n\(failing.count - rows) more failed tests are in junit.xml and tests.html.\n" }
        return md + "\n"
    }

    /// The tests that passed on a retry, with how often they failed first.
    func flakyTests(_ tests: TestRunResults) -> String {
        let flaky = tests.flaky
        guard !flaky.isEmpty else { return "" }
        var md = "| flaky test (passed on a retry) | failed attempts | label | first failure |\n| --- | --- | --- | --- |\n"
        for r in flaky.prefix(rows) {
            let failed = tests.otherAttempts[r.id, default: []].filter { $0.arguments == r.arguments }
            md += "| \(MarkdownText.cell(r.id + (r.arguments.map { " [\($0)]" } ?? ""))) | \(failed.count) | \(MarkdownText.cell(tests.failureLabels[r.id]?.text ?? "")) | \(MarkdownText.cell(failed.first.map(Self.firstLine) ?? "")) |\n"
        }
        if flaky.count > rows { md += "\n\(flaky.count - rows) more flaky tests are in junit.xml and tests.json.\n" }
        return md + "\n"
    }

    /// The first line of the first failure's message (the headline for crashes and timeouts).
    static func firstLine(_ result: TestCaseResult) -> String {
        guard let message = result.issues.first(where: \.isFailure)?.message else { return TestText.headline(result) }
        return String(message.split(whereSeparator: \.isNewline).first ?? "")
    }

    func flakySection(_ report: FlakyReport) -> String {
        let shown = report.findings.filter { $0.classification != .stable && $0.classification != .skipped }
        var md = "**Flakiness** (seed \(report.seed), \(report.orders.count) runs): \(MarkdownText.inline(report.summaryLine))\n\n"
        guard !shown.isEmpty else { return md }
        md += "| test | classification | failed runs | polluters / setters |\n| --- | --- | ---: | --- |\n"
        for finding in shown.prefix(rows) {
            let label = finding.classification.rawValue + (finding.quarantined ? " (quarantined)" : "")
            let culprits = FlakyText.culprits(finding)
            md += "| \(MarkdownText.cell(finding.id)) | \(label) | \(finding.failedRuns)/\(finding.runs) | \(MarkdownText.cell(culprits.isEmpty ? "–" : culprits)) |\n"
        }
        if shown.count > rows { md += "\n\(shown.count - rows) more findings are in flaky.json and flaky.html.\n" }
        return md + "\n"
    }

    /// The files with the lowest line coverage (fully covered and empty files left out).
    func worstFiles(_ coverage: CoverageReport) -> String {
        let worst = coverage.files.filter { $0.summary.lines.missed > 0 }
            .sorted { ($0.summary.lines.percent ?? 100, -$0.summary.lines.missed, $0.relativePath)
                    < ($1.summary.lines.percent ?? 100, -$1.summary.lines.missed, $1.relativePath) }
        guard !worst.isEmpty else { return "" }
        var md = "**Least covered files:**\n\n| file | lines | functions | regions | missing lines |\n| --- | ---: | ---: | ---: | --- |\n"
        for file in worst.prefix(rows) {
            let s = file.summary
            md += "| \(MarkdownText.cell(file.relativePath)) | \(Format.percent(s.lines)) (\(s.lines.covered)/\(s.lines.total)) | \(Format.percent(s.functions)) | \(Format.percent(s.regions)) | \(MarkdownText.cell(Format.ranges(file.missingRanges))) |\n"
        }
        if worst.count > rows { md += "\n\(worst.count - rows) more files with missed lines are in the full reports.\n" }
        return md + "\n"
    }

    /// `text` when it fits in `limit` UTF-8 bytes; else its first lines and a note that fit.
    static func bounded(_ text: String, limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var kept = 0, size = 0
        func note(_ left: Int) -> String {
            "\n_Summary truncated at \(limit) bytes: \(left) more lines are left out; the full reports are in the output folder._\n"
        }
        for line in lines {
            let next = size + line.utf8.count + 1
            if next + note(lines.count).utf8.count > limit { break }
            size = next
            kept += 1
        }
        // A table cut in the middle still renders: the note starts after a blank line.
        return lines.prefix(kept).joined(separator: "\n") + "\n" + note(lines.count - kept)
    }
}

/// Text made safe for GitHub-flavoured Markdown: no HTML, no table breaks, no emphasis or links by accident.
enum MarkdownText {
    /// Inline text: one line, HTML and Markdown punctuation escaped.
    static func inline(_ text: String, limit: Int = 1000) -> String {
        var out = ""
        let chars = Array(TestText.oneLine(ANSI.strip(text), limit: limit))
        for (i, ch) in chars.enumerated() {
            switch ch {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\\", "`", "*", "[", "]", "|", "#", "~": out += "\\" + String(ch)
            case "_":
                // Inside a word (`testB_crashes`) GitHub never reads `_` as emphasis: left as it is, readable.
                let before = chars[..<i].last { $0 != "_" }, after = chars[(i + 1)...].first { $0 != "_" }
                let inWord = [before, after].allSatisfy { $0.map { $0.isLetter || $0.isNumber } ?? false }
                out += inWord ? "_" : "\\_"
            default: out.append(ch)
            }
        }
        return out
    }

    /// A table cell: inline text, shorter.
    static func cell(_ text: String) -> String { inline(text, limit: 300) }
}

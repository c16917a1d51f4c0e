import Foundation
import TestscopeReports
import TestscopeCoverage
import TestscopeExecution
import TestscopeTestResults

/// Which files the final screen lists (`--show-files`): the N with the lowest line coverage, or all.
public enum FileRows: Sendable, Equatable {
    case worst(Int)
    case all

    /// `all` or a count (`0`: none); nil for anything else.
    public init?(parsing text: String) {
        if text == "all" { self = .all } else if let n = Int(text), n >= 0 { self = .worst(n) } else { return nil }
    }
}

/// The screen `run` and `report` end with, in the order a reader needs it: the verdict (tests,
/// coverage totals), the failures, coverage by target and the worst files, then where the reports
/// are. Fitted to the terminal's width (80 columns when it is not a terminal; no limit with
/// `--show-files all` there): no row wraps, long paths lose their middle. `coverage.txt` stays the
/// complete table; this is a view.
package struct ResultScreen {
    package var terminal: Terminal
    package var packageRoot: String
    package var files: FileRows
    package var showMissing: Bool

    package init(terminal: Terminal, packageRoot: String, files: FileRows = .worst(10), showMissing: Bool = false) {
        self.terminal = terminal
        self.packageRoot = packageRoot
        self.files = files
        self.showMissing = showMissing
    }

    /// The width rows are fitted to (nil: none).
    package var width: Int? { terminal.columns ?? (files == .all ? nil : 80) }

    /// `Tests: 12 passed, 2 failed, 0 skipped (3.2 s)` and `Coverage: lines …` (shorter when it would wrap).
    package func verdict(tests: TestRunResults?, coverage: CoverageReport?) -> [String] {
        // Shortened on a terminal only: in a CI log the verdict is read by people and by patterns
        // (GitLab's `coverage:`, scripts), so it stays whole there.
        let width = terminal.columns
        var lines: [String] = []
        if let tests {
            let wall = tests.wallTime.map { $0 < 60 ? String(format: " (%.1f s)", $0) : " (\(ScreenText.duration($0)))" } ?? ""
            let text = (tests.hasFailures ? "✗ " : "✓ ") + "Tests: \(tests.summaryLine)\(wall)"
            lines.append(terminal.styled(width.map { ScreenText.end(text, width: $0) } ?? text, tests.hasFailures ? .red : .green))
        }
        if let coverage {
            let t = coverage.totals
            let full = "Coverage: lines \(Format.percent(t.lines)) (\(t.lines.covered)/\(t.lines.total)), "
                + "functions \(Format.percent(t.functions)) (\(t.functions.covered)/\(t.functions.total)), "
                + "regions \(Format.percent(t.regions)) (\(t.regions.covered)/\(t.regions.total))"
            let short = "Coverage: lines \(Format.percent(t.lines)), functions \(Format.percent(t.functions)), regions \(Format.percent(t.regions))"
            lines.append(width.map { full.count <= $0 ? full : ScreenText.end(short, width: $0) } ?? full)
        }
        return lines
    }

    /// The failures, the slowest tests and the relaunch note (the summary line is the verdict's).
    package func failures(_ tests: TestRunResults) throws -> String {
        var summary = TestSummaryReport(terminal: terminal, packageRoot: packageRoot, slowest: terminal.quiet ? 0 : 3)
        summary.showsSummaryLine = false
        let text = try summary.renderString(tests)
        guard let width = terminal.columns else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .flatMap { ScreenText.wrap(String($0), width: width) }.joined(separator: "\n")
    }

    /// Coverage by target (with the total), then the files: the lowest line coverage first (`worst`), or
    /// every file in path order (`all`).
    package func coverageTables(_ report: CoverageReport) -> [String] {
        guard !report.files.isEmpty else { return [] }
        var lines: [String] = []
        let header = ["Target", "Lines", "", "Functions", "Regions"]
        let right = [false, true, true, true, true, false]
        var rows = [header] + report.targets.map { row($0.name, $0.summary) }
        rows.append(row("TOTAL", report.totals))
        lines += ScreenText.table(rows, right: right, width: width, droppable: [2, 4, 3])
        let shown: [FileSummary]
        switch files {
        case .all: shown = report.files
        case let .worst(count):
            shown = Array(report.files.filter { $0.summary.lines.total > 0 }.sorted {
                let (a, b) = ($0.summary.lines, $1.summary.lines)
                return (a.percent ?? 100, -a.missed, $0.relativePath) < (b.percent ?? 100, -b.missed, $1.relativePath)
            }.prefix(count))
        }
        guard !shown.isEmpty else { return lines }
        let title: String
        switch files {
        case .all: title = "Files (\(shown.count)):"
        case .worst: title = shown.count == report.files.count
            ? "Files, lowest line coverage first (\(shown.count)):"
            : "Lowest line coverage (\(shown.count) of \(report.files.count) files; --show-files all for every file):"
        }
        lines.append("")
        lines.append(terminal.styled(width.map { ScreenText.end(title, width: $0) } ?? title, .bold))
        var fileHeader = ["File", "Lines", "", "Functions", "Regions"]
        if showMissing { fileHeader.append("Missing") }
        let fileRows = [fileHeader] + shown.map { file in
            row(file.relativePath, file.summary) + (showMissing ? [Format.ranges(file.missingRanges)] : [])
        }
        lines += ScreenText.table(fileRows, right: right, width: width, droppable: showMissing ? [5, 2, 4, 3] : [2, 4, 3])
        return lines
    }

    private func row(_ name: String, _ summary: CoverageSummary) -> [String] {
        [name, Format.percent(summary.lines), "\(summary.lines.covered)/\(summary.lines.total)",
         Format.percent(summary.functions), Format.percent(summary.regions)]
    }

    /// One line: the HTML report's path whole (it is what one opens), then the other files' names as
    /// far as the width allows; on a terminal too narrow for the path, the path loses its middle.
    package func reportsLine(written: [String], folder: String, testsOnly: Bool) -> String? {
        let names = written.map { URL(fileURLWithPath: $0).lastPathComponent }
        guard !names.isEmpty else { return nil }
        // The coverage index, else the first page written (flaky.html for `flaky`).
        let html = written.first { URL(fileURLWithPath: $0).lastPathComponent == "index.html" } ?? written.first { $0.hasSuffix(".html") }
        var head = html.map { "HTML report: \($0)" + (testsOnly ? " (tests only, no coverage)" : "") + " · also in the folder:" }
            ?? "Reports in \(folder):"
        // The other pages first (tests.html, flaky.html): they are what one opens next.
        let htmlName = html.map { URL(fileURLWithPath: $0).lastPathComponent }
        var rest = names.filter { $0 != htmlName }.enumerated().sorted { a, b in
            (a.element.hasSuffix(".html") ? 0 : 1, a.offset) < (b.element.hasSuffix(".html") ? 0 : 1, b.offset)
        }.map(\.element)
        if rest.isEmpty { head = html.map { "HTML report: \($0)" + (testsOnly ? " (tests only, no coverage)" : "") } ?? head }
        guard let width, !rest.isEmpty else { return rest.isEmpty ? head : head + " " + rest.joined(separator: ", ") }
        var dropped = 0
        while !rest.isEmpty {
            let line = head + " " + rest.joined(separator: ", ") + (dropped > 0 ? ", +\(dropped) more" : "")
            if line.count <= width { return line }
            rest.removeLast()
            dropped += 1
        }
        let tail = testsOnly ? " (tests only, no coverage)" : ""
        let line = html.map { "HTML report: \($0)\(tail) (+\(dropped) more)" } ?? "Reports in \(folder): \(dropped) files"
        // On a terminal even the path gives way, in its middle, rather than wrap the line (off a terminal,
        // where nothing wraps, it stays whole to be copied).
        guard terminal.columns != nil, line.count > width, let path = html ?? Optional(folder) else { return line }
        let room = max(12, width - (line.count - path.count))
        return ScreenText.end(line.replacingOccurrences(of: path, with: ScreenText.middle(path, width: room)), width: width)
    }
}

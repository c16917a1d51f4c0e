import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution
@testable import TestscopeReports
@testable import TestscopeTestResults

/// summary.md on the recorded samples: the model's numbers, the failures, the size limits, escaping,
/// and the GitHub annotations' per-step limit.
final class MarkdownSummaryTests: XCTestCase {
    static var crashyRoot: String { TestsHTMLFixture.packageRoot }

    /// The recorded Crashy coverage with the recorded crash run's results (durations normalized).
    static func crashy() throws -> SummaryContent {
        SummaryContent(coverage: try ReportGoldenTests.report("Crashy").report,
                       tests: TestsHTMLFixture.normalized(try TestsHTMLFixture.results(crash: true)))
    }

    func testTotalsFailuresAndWorstFilesComeFromTheModel() throws {
        let content = try Self.crashy()
        let report = try XCTUnwrap(content.coverage)
        let tests = try XCTUnwrap(content.tests)
        let md = try MarkdownSummary(packageRoot: Self.crashyRoot).renderString(content)
        let t = report.totals
        XCTAssertTrue(md.contains("| Lines | \(t.lines.covered) | \(t.lines.total) | \(Format.percent(t.lines)) |"), md)
        XCTAssertTrue(md.contains("| Functions | \(t.functions.covered) | \(t.functions.total) | \(Format.percent(t.functions)) |"), md)
        XCTAssertTrue(md.contains("| Regions | \(t.regions.covered) | \(t.regions.total) | \(Format.percent(t.regions)) |"), md)
        XCTAssertTrue(md.contains("**Tests:** \(tests.summaryLine)"), md)
        let failing = tests.results.filter { $0.outcome.isFailure }
        XCTAssertFalse(failing.isEmpty)
        for result in failing {
            XCTAssertTrue(md.contains("| \(MarkdownText.cell(result.id + (result.arguments.map { " [\($0)]" } ?? ""))) | \(result.outcome.rawValue) |"), result.id)
            if let place = result.primaryLocation {
                XCTAssertTrue(md.contains("\(PathDisplay(root: Self.crashyRoot).relative(place.file)):\(place.line)"), result.id)
            }
        }
        for file in report.files where file.summary.lines.missed > 0 {
            XCTAssertTrue(md.contains("| \(MarkdownText.cell(file.relativePath)) | \(Format.percent(file.summary.lines)) (\(file.summary.lines.covered)/\(file.summary.lines.total))"), file.relativePath)
        }
        XCTAssertFalse(md.contains("change"), "no baseline column without a baseline")
        var multiline = try XCTUnwrap(failing.first { $0.outcome == .failed })
        multiline.issues = [TestIssue(kind: .failure, message: "first line\nsecond line")]
        XCTAssertEqual(MarkdownSummary.firstLine(multiline), "first line")
        XCTAssertFalse(md.contains("Changed lines"), "no diff section without --diff-base")
    }

    func testGoldens() throws {
        for sample in ReportGoldenTests.samples {
            let content = SummaryContent(coverage: try ReportGoldenTests.report(sample).report)
            let md = try MarkdownSummary(packageRoot: ReportGoldenTests.repoRoot.path + "/sample-profiles/packages/\(sample)").renderString(content)
            try Golden.assertMatches(ReportGoldenTests.normalized(md), "\(sample)/summary.md")
        }
        try Golden.assertMatches(ReportGoldenTests.normalized(try MarkdownSummary(packageRoot: Self.crashyRoot).renderString(try Self.crashy())),
                                 "Crashy/summary.md")
    }

    /// The optional sections: a baseline equal to the run shows no change; a diff with nothing
    /// executable says so; a regression is listed.
    func testBaselineAndDiffSections() throws {
        let report = try ReportGoldenTests.report("Inventory")
        var content = SummaryContent(coverage: report.report)
        let file = try XCTUnwrap(report.files.first { $0.summary.lines.missed > 0 })
        content.baseline = BaselineChange(totals: report.totals, regressions: [(file.relativePath, file.summary.lines.missed - 1, file.summary.lines.missed)])
        content.diff = DiffCoverageSummary(base: "origin/main", lines: CoverageRatio(), regions: CoverageRatio(), files: [])
        var md = try MarkdownSummary(packageRoot: report.metadata.packageRoot).renderString(content)
        XCTAssertTrue(md.contains("| Lines | \(report.totals.lines.covered) | \(report.totals.lines.total) | \(Format.percent(report.totals.lines)) | ±0.00 pp |"), md)
        XCTAssertTrue(md.contains("no executable lines changed"), md)
        XCTAssertTrue(md.contains("| \(MarkdownText.cell(file.relativePath)) | \(file.summary.lines.missed - 1) | \(file.summary.lines.missed) |"), md)
        content.diff = DiffCoverageSummary(base: "origin/main", lines: file.summary.lines, regions: file.summary.regions,
                                           files: [.init(path: file.relativePath, lines: file.summary.lines, uncovered: file.missingRanges)])
        md = try MarkdownSummary(packageRoot: report.metadata.packageRoot).renderString(content)
        XCTAssertTrue(md.contains("lines \(Format.percent(file.summary.lines)) (\(file.summary.lines.covered)/\(file.summary.lines.total))"), md)
        XCTAssertTrue(md.contains(Format.ranges(file.missingRanges)), md)
        XCTAssertEqual(MarkdownSummary.change(CoverageRatio(covered: 3, total: 4), from: CoverageRatio(covered: 1, total: 2)), "+25.00 pp")
        XCTAssertEqual(MarkdownSummary.change(CoverageRatio(covered: 1, total: 4), from: CoverageRatio(covered: 1, total: 2)), "-25.00 pp")
        XCTAssertEqual(MarkdownSummary.change(CoverageRatio(), from: CoverageRatio(covered: 1, total: 2)), "–")
    }

    /// Past the limit the summary is cut at a line boundary, with a note, within the limit; both limits.
    func testTruncatedWithANoteWithinTheLimit() throws {
        var content = try Self.crashy()
        var tests = try XCTUnwrap(content.tests)
        let failing = try XCTUnwrap(tests.results.first { $0.outcome == .failed })
        tests.results = (0..<5000).map { i in
            var r = failing
            r.id += "\(i)"
            r.issues = [TestIssue(kind: .failure, message: String(repeating: "é", count: 400), location: failing.primaryLocation)]
            return r
        }
        content.tests = tests
        for limit in [MarkdownSummary.commentLimit, MarkdownSummary.stepSummaryLimit] {
            let md = try MarkdownSummary(packageRoot: Self.crashyRoot, limit: limit, rows: 5000).renderString(content)
            XCTAssertLessThanOrEqual(md.utf8.count, limit)
            XCTAssertGreaterThan(md.utf8.count, limit - 2000, "filled up to the limit")
            XCTAssertTrue(md.contains("_Summary truncated at \(limit) bytes:"), String(md.suffix(300)))
            XCTAssertTrue(md.hasPrefix("### Testscope\n\n| coverage |"), "the totals come first and are kept")
        }
        let short = try MarkdownSummary(packageRoot: Self.crashyRoot).renderString(try Self.crashy())
        XCTAssertFalse(short.contains("truncated"))
    }

    func testPackageTextCannotInjectMarkupOrBreakTables() {
        XCTAssertEqual(MarkdownText.cell("a|b <img src=x> *c* `d` [e](f)\nnext"), "a\\|b &lt;img src=x&gt; \\*c\\* \\`d\\` \\[e\\](f) next")
        XCTAssertEqual(MarkdownText.cell(String(repeating: "x", count: 1000)).count, 301)
        XCTAssertEqual(MarkdownText.cell("testB_crashes _em_ a__b"), "testB_crashes \\_em\\_ a__b", "only `_` that could start or end emphasis")
    }

    /// GitHub shows 10 error annotations per step: 9 tests and one line naming the rest.
    func testAnnotationsStayWithinGitHubsPerStepLimit() throws {
        let run = try TestsHTMLFixture.results(crash: true)
        let failing = try XCTUnwrap(run.results.first { $0.outcome == .failed })
        let github = GitHubActionsReport(packageRoot: Self.crashyRoot)
        let few = TestRunResults(results: Array(repeating: failing, count: 10))
        XCTAssertEqual(github.annotations(few).count, 10)
        XCTAssertFalse(github.annotations(few).contains { $0.contains("more failed tests") })
        var many = TestRunResults()
        for i in 0..<25 {
            var r = failing
            r.id = "M.C/test\(i)"
            many.results.append(r)
        }
        let lines = github.annotations(many)
        XCTAssertEqual(lines.count, GitHubActionsReport.errorsPerStep)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("::error ") })
        XCTAssertTrue(lines[9].contains("16 more failed tests") && lines[9].contains("M.C/test9") && lines[9].contains("M.C/test24"), lines[9])
        XCTAssertFalse(lines[9].contains("\n"))
    }
}

import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution
@testable import TestscopeReports
@testable import TestscopeTestResults

/// Where things are on the pages (issue 14): a file page opens on its source, the function table
/// follows it folded into a one-line summary, never-run functions first, closures in their
/// function's group; the index says why its line figure differs from llvm-cov's and SwiftPM's, and
/// shows the run's test outcome. On the recorded samples, and on Crashy with its tests counted
/// (its test files have the recordings' longest function tables).
final class HTMLPageLayoutTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws { folder = try HTMLTestSupport.temporaryFolder("layout") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func reports() throws -> [(String, CoverageModel)] {
        try HTMLTestSupport.samples.map { ($0, try HTMLTestSupport.report($0)) } + [("Crashy with tests", try TestsHTMLReportTests.crashyCoverage())]
    }

    /// The function table's one-line summary, as text.
    static func summaryText(_ html: String) -> String? {
        guard let start = html.range(of: "<details class=\"functions-fold\""),
              let open = html.range(of: "<summary>", range: start.upperBound..<html.endIndex),
              let close = html.range(of: "</summary>", range: open.upperBound..<html.endIndex) else { return nil }
        return HTMLTestSupport.text(String(html[open.upperBound..<close.lowerBound])).trimmingCharacters(in: .whitespaces)
    }

    func testFilePagesOpenOnTheSourceWithTheFunctionTableFoldedIntoASummary() throws {
        var parts = Set<String>()
        for (sample, report) in try reports() {
            let pages = HTMLPageNames.pages(for: report.files.map(\.relativePath))
            try HTMLTestSupport.htmlReport().writePages(report, into: OutputFolder(folder.appendingPathComponent(sample)))
            for (file, page) in zip(report.files, pages) {
                let html = try HTMLTestSupport.read(folder.appendingPathComponent("\(sample)/files/\(page)"))
                let source = try XCTUnwrap(html.range(of: "<table class=\"source\">"), page)
                guard !file.functions.isEmpty else {
                    XCTAssertTrue(html.contains("<p class=\"empty\">No functions in this file.</p>"), page)
                    continue
                }
                let fold = try XCTUnwrap(html.range(of: "<details class=\"functions-fold\" id=\"functions\">"), "\(page): closed, no open attribute")
                let table = try XCTUnwrap(html.range(of: "<table class=\"grid functions\">"), page)
                XCTAssertLessThan(source.lowerBound, fold.lowerBound, "\(page): the source comes first in the document")
                XCTAssertLessThan(fold.lowerBound, table.lowerBound, "\(page): the table is inside the folded section")
                XCTAssertEqual(html.components(separatedBy: "<table class=\"grid functions\">").count, 2, page)
                let closures = file.functions.flatMap(\.closures)
                let notRun = file.functions.filter { $0.count == 0 }.count, closuresNotRun = closures.filter { $0.count == 0 }.count
                var expected = "\(file.functions.count) function\(file.functions.count == 1 ? "" : "s")"
                if notRun > 0 { expected += ", \(notRun) not run" }
                if !closures.isEmpty { expected += " · \(closures.count) closure\(closures.count == 1 ? "" : "s")" + (closuresNotRun > 0 ? ", \(closuresNotRun) not run" : "") }
                XCTAssertEqual(Self.summaryText(html), expected, page)
                if notRun > 0 { parts.insert("not run") }
                if !closures.isEmpty { parts.insert("closures") }
                if closuresNotRun > 0 { parts.insert("closures not run") }
            }
        }
        XCTAssertEqual(parts, ["not run", "closures", "closures not run"], "the samples exercise every part of the summary")
    }

    func testNeverRunFunctionsComeFirstAndClosuresAreGroupedUnderTheirFunction() throws {
        let groupPattern = try NSRegularExpression(pattern: #"<tbody( class="group")?>(.*?)</tbody>"#, options: .dotMatchesLineSeparators)
        let rowPattern = try NSRegularExpression(pattern: ##"<tr class="(function|closure) (hit|missed)"><td class="fn"><a href="#L(\d+)">([^<]*)</a>(.*?)</td><td class="num">\d+</td><td class="num" title="(\d+) call"##)
        func matches(_ regex: NSRegularExpression, _ text: String) -> [[String]] {
            let ns = text as NSString
            return regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { match in
                (0..<match.numberOfRanges).map { match.range(at: $0).location == NSNotFound ? "" : ns.substring(with: match.range(at: $0)) }
            }
        }
        var grouped = 0
        for (sample, report) in try reports() {
            let pages = HTMLPageNames.pages(for: report.files.map(\.relativePath))
            try HTMLTestSupport.htmlReport().writePages(report, into: OutputFolder(folder.appendingPathComponent(sample)))
            for (file, page) in zip(report.files, pages) where !file.functions.isEmpty {
                let html = try HTMLTestSupport.read(folder.appendingPathComponent("\(sample)/files/\(page)"))
                let table = String(html[try XCTUnwrap(html.range(of: "<table class=\"grid functions\">")).upperBound...])
                let groups = matches(groupPattern, String(table[..<(table.range(of: "</table>")?.lowerBound ?? table.endIndex)]))
                let neverRun = file.functions.filter { $0.count == 0 }.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
                let ran = file.functions.filter { $0.count > 0 }.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
                let order = neverRun + ran
                XCTAssertEqual(groups.count, order.count, "\(page): one group per function")
                for (group, function) in zip(groups, order) {
                    let rows = matches(rowPattern, group[2])
                    let described = rows.map { "\($0[1])|\($0[2])|\(HTMLTestSupport.text($0[4]))|\($0[3])|\($0[6])" }
                    let expected = ["function|\(function.count > 0 ? "hit" : "missed")|\(function.name)|\(function.line)|\(function.count)"]
                        + function.closures.map { "closure|\($0.count > 0 ? "hit" : "missed")|\($0.name)|\($0.line)|\($0.count)" }
                    XCTAssertEqual(described, expected, "\(page): \(function.name) and its closures, in one group")
                    XCTAssertEqual(group[1].isEmpty, function.closures.isEmpty, "\(page): only a function with closures is a foldable group")
                    let fold = HTMLTestSupport.text(rows.first?[5] ?? "")
                    if function.closures.isEmpty {
                        XCTAssertEqual(fold, "", page)
                    } else {
                        grouped += 1
                        let missed = function.closures.filter { $0.count == 0 }.count
                        XCTAssertEqual(fold, "\(function.closures.count) closure\(function.closures.count == 1 ? "" : "s")" + (missed > 0 ? ", \(missed) not run" : ""), page)
                        XCTAssertTrue(rows[0][5].hasPrefix("<button type=\"button\" class=\"fold\" aria-expanded=\"false\""), page)
                    }
                }
            }
        }
        XCTAssertGreaterThan(grouped, 5, "the samples have functions with closures")
    }

    func testIndexExplainsItsLineFigureAndShowsTheTestOutcome() throws {
        let report = try TestsHTMLReportTests.crashyCoverage()
        try HTMLTestSupport.htmlReport().writePages(report, into: OutputFolder(folder.appendingPathComponent("plain")))
        let plain = try HTMLTestSupport.read(folder.appendingPathComponent("plain/index.html"))
        let note = try XCTUnwrap(plain.range(of: "<details class=\"numbers-note\" id=\"numbers\">"))
        let cards = try XCTUnwrap(plain.range(of: "<div class=\"cards\">"))
        XCTAssertLessThan(cards.lowerBound, note.lowerBound, "the note follows the totals it explains")
        let summary = HTMLTestSupport.text(plain[note.upperBound...].components(separatedBy: "</summary>")[0])
        for phrase in ["once", "llvm-cov show", "llvm-cov report", "SwiftPM's coverage JSON", "Why?"] {
            XCTAssertTrue(summary.contains(phrase), "the one-sentence explanation names \(phrase): \(summary)")
        }
        XCTAssertFalse(plain.contains("test-outcome"), "no test outcome without test results")

        for (crash, singleFile) in [(false, false), (true, false), (false, true)] {
            let run = try TestsHTMLFixture.results(crash: crash)
            var html = try HTMLTestSupport.htmlReport(singleFile: singleFile, navigation: [.coverage, .tests])
            html.tests = run
            let out = folder.appendingPathComponent("tests-\(crash)-\(singleFile)")
            try html.writePages(report, into: OutputFolder(out))
            let index = try HTMLTestSupport.read(out.appendingPathComponent("index.html"))
            let failed = run.results.filter { $0.outcome == .failed }.count
            XCTAssertGreaterThan(failed, 0, "Crashy's recorded run has failures")
            let line = "<p class=\"test-outcome lo\"><a href=\"\(singleFile ? "#tests" : "tests.html")\">\(run.results.count) tests: "
                + "\(run.results.filter { $0.outcome == .passed }.count) passed, \(failed) failed"
            XCTAssertTrue(index.contains(line), "crash \(crash), single file \(singleFile): \(line)")
            XCTAssertEqual(index.components(separatedBy: "class=\"test-outcome").count, 2)
        }
    }
}

import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution
@testable import TestscopeReports
@testable import TestscopeTestResults

/// The Tests page inside the HTML report: coverage file pages link the failures located in them,
/// the single-file report embeds the Tests view, the top bar, and the index of a report without coverage.
final class TestsHTMLReportTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws { folder = try HTMLTestSupport.temporaryFolder("tests-html") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    /// The recorded Crashy coverage, its sources and tests both counted (like `--include 'Sources/**' --include 'Tests/**'`).
    static func crashyCoverage() throws -> CoverageModel {
        let root = URL(fileURLWithPath: TestsHTMLFixture.packageRoot)
        let recorded = TestsHTMLFixture.repoRoot.appendingPathComponent("sample-profiles/recorded/Crashy")
        let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: recorded.appendingPathComponent("meta.json"))) as? [String: Any]
        let layout = PackageLayout.conventional(root: root)
        let options = CoverageBuildOptions(
            packageRoot: root, layout: layout,
            filter: SourceFilter(root: root.path, testDirectories: layout.testDirectories, include: [try Glob("Sources/**"), try Glob("Tests/**")], exclude: []),
            pathEquivalences: [PathEquivalence(from: try XCTUnwrap(meta?["packageRoot"] as? String), to: root.path)],
            demangler: SwiftDemangler(library: try Toolchain.locate().demangler), createdAt: Date(timeIntervalSince1970: 0))
        return try CoverageBuilder(options: options).build(exports: [recorded.appendingPathComponent("coverage.json")])
    }

    /// `href="#x"` targets without an element `id="x"` in the same document.
    static func danglingFragments(_ html: String) -> [String] {
        let ids = Set(TestsHTMLFixture.attributes("id", in: html, after: "<html", before: "</html>"))
        return TestsHTMLFixture.attributes("href", in: html, after: "<html", before: "</html>")
            .filter { $0.hasPrefix("#") && !ids.contains(String($0.dropFirst())) }
    }

    func testFilePagesLinkTheirFailuresToTheTestsPage() throws {
        let report = try Self.crashyCoverage()
        for crash in [false, true] {
            let run = try TestsHTMLFixture.results(crash: crash)
            var html = try HTMLTestSupport.htmlReport(navigation: [.coverage, .tests])
            html.tests = run
            try html.writePages(report, into: OutputFolder(folder))
            let testsPage = try TestsHTMLFixture.page().renderString(run)
            XCTAssertEqual(Self.danglingFragments(testsPage), [], "every in-page link of tests.html has its target")
            let testIDs = Set(TestsHTMLFixture.attributes("id", in: testsPage, after: "<main", before: "</main>"))
            let pages = HTMLPageNames.pages(for: report.files.map(\.relativePath))
            var linked = 0
            for (file, page) in zip(report.files, pages) {
                let text = try HTMLTestSupport.read(folder.appendingPathComponent("files/" + page))
                XCTAssertTrue(text.contains("<a href=\"../tests.html\">Tests</a>"), "the Tests page in the top bar of \(page)")
                // Every failing issue and crash located in this file, by its absolute path.
                var expected: [(line: Int, anchor: String)] = []
                for (i, result) in run.results.enumerated() where result.outcome.isFailure {
                    for (k, issue) in result.issues.enumerated() where issue.isFailure && issue.location?.file == file.path {
                        expected.append((issue.location!.line, "t\(i + 1)-\(k + 1)"))
                    }
                    if let location = result.crash?.location, location.file == file.path { expected.append((location.line, "t\(i + 1)-crash")) }
                }
                let box = text.components(separatedBy: "data-section=\"test-failures\"").dropFirst().first ?? ""
                XCTAssertEqual(box.isEmpty, expected.isEmpty, file.relativePath)
                let hrefs = TestsHTMLFixture.attributes("href", in: box, after: "", before: "</section>").filter { $0.contains("tests.html#") }
                let sorted = expected.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
                XCTAssertEqual(hrefs, sorted.map { "../tests.html#\($0.anchor)" }, file.relativePath)
                XCTAssertEqual(TestsHTMLFixture.attributes("href", in: box, after: "", before: "</section>").filter { $0.hasPrefix("#L") },
                               sorted.map { "#L\($0.line)" })
                for anchor in sorted.map(\.anchor) { XCTAssertTrue(testIDs.contains(anchor), "tests.html has #\(anchor)") }
                linked += sorted.count
            }
            XCTAssertEqual(linked, crash ? 4 : 3, "the recorded failures and crashes located in the package's files")
        }
        // Without test results there is no box.
        try HTMLTestSupport.htmlReport().writePages(report, into: OutputFolder(folder))
        let plain = try HTMLTestSupport.read(folder.appendingPathComponent("files/Sources.Crashy.Crashy.swift.html"))
        XCTAssertFalse(plain.contains("test-failures"))
    }

    func testSingleFileReportEmbedsTheTestsView() throws {
        let report = try Self.crashyCoverage()
        var html = try HTMLTestSupport.htmlReport(singleFile: true, navigation: [.coverage, .tests])
        html.tests = try TestsHTMLFixture.results(crash: true)
        let document = try html.renderString(report)
        XCTAssertTrue(document.contains("<section class=\"view\" id=\"tests\" data-view=\"tests\">"))
        XCTAssertTrue(document.contains("<a href=\"#tests\">Tests</a>"))
        XCTAssertTrue(document.contains("<a href=\"#index\" aria-current=\"page\">Coverage</a>"))
        XCTAssertTrue(document.contains("id=\"tests-t2-crash\""))
        XCTAssertTrue(document.contains("href=\"#tests-t2-crash\""), "a file view links its failure into the Tests view")
        XCTAssertEqual(Self.danglingFragments(document), [])
        let ids = TestsHTMLFixture.attributes("id", in: document, after: "<html", before: "</html>")
        XCTAssertEqual(ids.count, Set(ids).count, "no id twice: \(Dictionary(grouping: ids, by: { $0 }).filter { $0.value.count > 1 }.keys)")
    }

    func testNavigationAndTheIndexOfAReportWithoutCoverage() throws {
        let output = OutputFolder(folder)
        let run = try TestsHTMLFixture.results(crash: false)
        var page = try TestsHTMLFixture.page(navigation: [])
        page.landingIndex = true
        XCTAssertEqual(page.pageKinds, [.tests, .testsLanding])
        let pages = PagesManifest.read(in: output).replacing(.testReport, with: page.pageKinds, command: "report", in: output)
        XCTAssertEqual(pages.navigation, [.tests], "the landing index is not the Coverage page")
        XCTAssertTrue(pages.hasLandingIndex)
        page.navigation = pages.navigation
        let written = try page.writePages(run, into: output)
        try pages.write(into: output)
        XCTAssertEqual(written.map { URL(fileURLWithPath: $0).lastPathComponent }, ["tests.html", "index.html"])
        let landing = try HTMLTestSupport.read(URL(fileURLWithPath: written[1]))
        XCTAssertTrue(PagesManifest.read(in: output).hasLandingIndex)
        XCTAssertTrue(landing.contains("<html lang=\"en\" data-page=\"tests-landing\">"))
        XCTAssertTrue(landing.contains("<a class=\"ts-open\" href=\"tests.html\">Open the Tests page →</a>"))
        XCTAssertTrue(landing.contains("This report has no coverage"))
        XCTAssertTrue(landing.contains("<div class=\"card-value\">\(run.results.count)</div>"))
        // A later report with coverage and tests: index.html is the Coverage page again, not the landing page.
        let next = PagesManifest.read(in: output).replacing(.testReport, with: [.coverage, .tests], command: "run", in: output)
        XCTAssertFalse(next.hasLandingIndex)
        XCTAssertEqual(next.navigation, [.coverage, .tests])
        var html = try HTMLTestSupport.htmlReport(navigation: next.navigation)
        html.tests = run
        try html.writePages(try HTMLTestSupport.report("Shapes"), into: output)
        try next.write(into: output)
        XCTAssertFalse(PagesManifest.read(in: output).hasLandingIndex)
        // tests.html opens on its own: its style and script are inline, nothing is loaded.
        let tests = try HTMLTestSupport.read(folder.appendingPathComponent("tests.html"))
        XCTAssertFalse(tests.contains("assets/"))
        XCTAssertTrue(tests.contains("<a href=\"tests.html\" aria-current=\"page\">Tests</a>"))
    }
}

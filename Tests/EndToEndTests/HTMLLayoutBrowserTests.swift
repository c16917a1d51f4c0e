import Foundation
import XCTest
import TestscopeExecution

/// The pages as a person opens them (issue 14), in real headless Chromium: the file page with the
/// longest function table of the recorded samples (Crashy with its tests counted) opens on its
/// source with the table folded, closures grouped under their function, `#functions` unfolds it;
/// screenshots at desktop and phone width, light and dark. The index shows the run's test outcome
/// (the same numbers as the Tests page) and the note on why its line figure differs.
/// `TESTSCOPE_SCREENSHOTS=DIR` keeps the screenshots there (docs/html-report.md).
final class HTMLLayoutBrowserTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws { folder = try TestscopeProcess.temporaryDirectory("testscope-layout") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func testLongFunctionTableIsFoldedBelowTheSourceAtEveryWidthAndTheme() throws {
        let output = folder.appendingPathComponent("report")
        let recorded = TestscopeProcess.samples.appendingPathComponent("recorded/Crashy")
        let result = try TestscopeProcess.run(try TestscopeProcess.recordedReportArguments("Crashy") + [
            "--include", "Sources/**", "--include", "Tests/**", "--test-log", recorded.appendingPathComponent("swift-test.log").path,
            "--event-stream", recorded.appendingPathComponent("swift-testing-events.jsonl").path,
            "--test-list", recorded.appendingPathComponent("test-list.txt").path, "--format", "html", "--output", output.path,
        ])
        XCTAssertEqual(result.status, 1, "Crashy's recorded run has failures: \(result.stderr)")

        // The page with the most function rows.
        let files = output.appendingPathComponent("files")
        let pages = try FileManager.default.contentsOfDirectory(atPath: files.path).map { name -> (String, Int) in
            let html = try String(contentsOf: files.appendingPathComponent(name), encoding: .utf8)
            return (name, html.components(separatedBy: "<tr class=\"function ").count + html.components(separatedBy: "<tr class=\"closure ").count - 2)
        }
        let (name, rows) = try XCTUnwrap(pages.max { $0.1 < $1.1 })
        let url = files.appendingPathComponent(name)
        let page = try Chromium.load(url, in: folder)
        page.assertClean()
        XCTAssertEqual(try page.text("count(//tbody/tr[contains(@class,'function') or contains(@class,'closure')])"), String(rows), name)
        XCTAssertEqual(try page.text("count(//details[@id='functions'])"), "1")
        XCTAssertEqual(try page.text("count(//details[@id='functions'][@open])"), "0", "\(name): the table starts folded")
        XCTAssertEqual(try page.text("count(//table[contains(@class,'source')]/following::details[@id='functions'])"), "1",
                       "\(name): the source comes first in the document")
        XCTAssertEqual(try page.text("count(//details[@id='functions']/following::table[contains(@class,'source')])"), "0")
        let closures = try page.text("count(//tr[contains(@class,'closure')])")
        XCTAssertNotEqual(closures, "0", "\(name) has closures")
        XCTAssertEqual(try page.text("count(//tbody[contains(@class,'group')]/tr[contains(@class,'closure')])"), closures, "every closure in a group")
        XCTAssertEqual(try page.text("count(//tbody[contains(@class,'group')]/tr[1][contains(@class,'function')]//button[@class='fold'])"),
                       try page.text("count(//tbody[contains(@class,'group')])"), "each group starts with its function and its toggle")
        XCTAssertTrue(try page.text("//details[@id='functions']/summary").contains("functions"), "the one-line summary")

        let linked = try Chromium.load(url, fragment: "functions", in: folder)
        linked.assertClean()
        XCTAssertEqual(try linked.text("count(//details[@id='functions'][@open])"), "1", "#functions unfolds the table")

        let keep = ProcessInfo.processInfo.environment["TESTSCOPE_SCREENSHOTS"].map { URL(fileURLWithPath: $0) }
        for (label, width, height) in [("desktop", 1280, 900), ("phone", 400, 860)] {
            var backgrounds: [String: [Int]] = [:]
            for theme in ["light", "dark"] {
                let png = (keep ?? folder).appendingPathComponent("file-page-\(label)-\(theme).png")
                try Chromium.screenshot(url, theme: theme, width: width, height: height, to: png, in: folder)
                // Left of the content, under the top bar: the page's background.
                let shot = try Chromium.pixel(of: png, x: 4, y: 70)
                XCTAssertEqual([shot.width, shot.height], [width, height], png.lastPathComponent)
                backgrounds[theme] = shot.rgb
            }
            XCTAssertTrue(backgrounds["light"]?.allSatisfy { $0 > 230 } == true, "\(label) light background: \(backgrounds)")
            XCTAssertTrue(backgrounds["dark"]?.allSatisfy { $0 < 40 } == true, "\(label) dark background: \(backgrounds)")
        }

        let index = try Chromium.load(output.appendingPathComponent("index.html"), in: folder)
        index.assertClean()
        let tests = try Chromium.load(output.appendingPathComponent("tests.html"), in: folder)
        let total = try tests.text("//div[@data-outcome='total']/div[@class='card-value']")
        let passed = try tests.text("//div[@data-outcome='passed']/div[@class='card-value']")
        let failed = try tests.text("//div[@data-outcome='failed']/div[@class='card-value']")
        XCTAssertEqual(try index.text("//p[contains(@class,'test-outcome')]/a/@href"), "tests.html")
        XCTAssertTrue(try index.text("//p[contains(@class,'test-outcome')]/a").hasPrefix("\(total) tests: \(passed) passed, \(failed) failed"),
                      "the index's test outcome agrees with the Tests page")
        XCTAssertTrue(try index.text("//details[@id='numbers']/summary").contains("llvm-cov report"))
        XCTAssertEqual(try index.text("count(//details[@id='numbers'][@open])"), "0")
    }

    /// flaky.html at desktop width: the findings table (long reproduction commands) fits the page rather
    /// than running past its right edge, and the Jobs fact says what the terminal said.
    func testFlakyFindingsFitThePageAndTheJobsAreTheTerminals() throws {
        let output = folder.appendingPathComponent("flaky")
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Flaky")
        let result = try TestscopeProcess.run(["flaky", "--package-path", package.path, "--filter", "CacheTests", "--runs", "4", "--seed", "7",
                                               "--output", output.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let jobs = try XCTUnwrap(result.stdout.split(separator: "\n").first?.components(separatedBy: " runs, ").last, result.stdout)
        XCTAssertTrue(jobs.hasSuffix(" while the CPUs sit idle)"), jobs)
        let html = try String(contentsOf: output.appendingPathComponent("flaky.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("testscope flaky --package-path \(package.path) --filter CacheTests --order"), "a long command to fit")
        // Measured in the page: how far the findings table's box runs past the right edge of its frame.
        let measure = """
            <script>addEventListener('load', () => { const wrap = document.querySelector('.fl-findings').closest('.table-wrap');
            document.body.setAttribute('data-overflow', String(wrap.scrollWidth - wrap.clientWidth)); });</script></body>
            """
        let measured = output.appendingPathComponent("flaky-measured.html")
        try html.replacingOccurrences(of: "</body>", with: measure).write(to: measured, atomically: true, encoding: .utf8)
        let page = try Chromium.load(measured, in: folder, extraArguments: ["--window-size=1280,900"])
        XCTAssertEqual(try page.text("string(//body/@data-overflow)"), "0", "the Reproduce column is cut off at the right")
        XCTAssertEqual(try page.text("string(//dt[.='Jobs']/following-sibling::dd)"), jobs, "the terminal's words")
    }
}

import Foundation
import XCTest

/// The Tests page of the HTML report in headless Chromium: written by the built `testscope` from the
/// recorded Crashy runs (and from a real run with a crash and a hang), loaded from file:// with the
/// network off: no script error, the counts of tests.json, every result, and the coverage file pages'
/// links to the failures located in them.
final class TestsHTMLBrowserTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws { folder = try TestscopeProcess.temporaryDirectory("testscope-tests-html") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    static var crashy: URL { TestscopeProcess.samples.appendingPathComponent("packages/Crashy") }

    static func recorded(_ name: String) -> String {
        TestscopeProcess.samples.appendingPathComponent("recorded/Crashy/\(name)").path
    }

    /// `testscope report` on the recorded crash run: its coverage export, console log, event stream and
    /// test list, the recording's root mapped onto this checkout; the package's sources and tests counted.
    static func reportArguments(coverage: Bool = true) throws -> [String] {
        var arguments = ["report", "--test-log", recorded("crash-swift-test.log"), "--event-stream", recorded("crash-swift-testing-events.jsonl"),
                         "--test-list", recorded("test-list.txt"), "--package-path", crashy.path,
                         "--path-equivalence", "\(try TestscopeProcess.recordedRoot("Crashy")),\(crashy.path)"]
        if coverage { arguments += ["--export", recorded("coverage.json"), "--include", "Sources/**", "--include", "Tests/**"] }
        return arguments
    }

    /// tests.json's summary and results.
    static func testsJSON(_ output: URL) throws -> (summary: [String: Int], tests: [[String: Any]]) {
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("tests.json"))) as? [String: Any])
        return (try XCTUnwrap(json["summary"] as? [String: Int]), try XCTUnwrap(json["tests"] as? [[String: Any]]))
    }

    /// The count cards and the "All tests" table agree with tests.json; failures come first.
    func assertCounts(_ page: Chromium, json: (summary: [String: Int], tests: [[String: Any]]), prefix: String = "",
                      file: StaticString = #filePath, line: UInt = #line) throws {
        let scope = prefix.isEmpty ? "" : "//section[@id='tests']"
        for key in ["passed", "failed", "skipped", "expected-failure", "crashed", "timed-out", "total"] {
            XCTAssertEqual(try page.text("\(scope)//div[@data-outcome='\(key)']/div[@class='card-value']"), String(json.summary[key] ?? -1),
                           key, file: file, line: line)
        }
        let rows = "\(scope)//table[contains(@class,'ts-all')]/tbody/tr"
        XCTAssertEqual(try page.text("count(\(rows))"), String(json.tests.count), file: file, line: line)
        let failing = json.tests.filter { ["failed", "crashed", "timed-out"].contains($0["outcome"] as? String ?? "") }.count
        XCTAssertEqual(try page.text("count(\(rows)[position() <= \(failing)][@data-outcome='failed' or @data-outcome='crashed' or @data-outcome='timed-out'])"),
                       String(failing), "failures first", file: file, line: line)
        XCTAssertEqual(try page.text("count(\(scope)//article[contains(@class,'ts-test')][not(contains(@class,'ts-known'))])"), String(failing),
                       file: file, line: line)
    }

    func testTestsPageAndFilePagesFromTheRecordedCrashRun() throws {
        let output = folder.appendingPathComponent("report")
        let result = try TestscopeProcess.run(try Self.reportArguments() + ["--output", output.path])
        XCTAssertEqual(result.status, 1, "crashed tests fail the report\n\(result.stderr)")
        XCTAssertTrue(result.stdout.contains("HTML report: \(output.path)/index.html"), result.stdout)
        let json = try Self.testsJSON(output)

        let tests = try Chromium.load(output.appendingPathComponent("tests.html"), in: folder)
        tests.assertClean()
        try assertCounts(tests, json: json)
        XCTAssertEqual(try tests.text("//nav[@class='tabs']/a[@aria-current='page']"), "Tests")
        XCTAssertEqual(try tests.text("count(//nav[@class='tabs']/a[@href='index.html'])"), "1", "Coverage in the top bar")
        XCTAssertEqual(try tests.text("//div[@id='t2-crash']//dt[.='Signal']/following-sibling::dd[1]"), "4 (SIGILL)")
        XCTAssertEqual(try tests.text("//div[@id='t2-crash']//dt[.='Fatal error']/following-sibling::dd[1]"),
                       "Swift/ContiguousArrayBuffer.swift:692: Fatal error: Index out of range")
        XCTAssertEqual(try tests.text("//div[@id='t2-crash']//tr[@class='ts-hit']/td[@class='code']"), "        values[index]  // out of range crashes")
        XCTAssertEqual(try tests.text("//tr[@data-test='CrashyTests.CrashySuite/disabled()']/td[@class='ts-reason']"), "not ready yet")

        // The coverage index links the Tests page; a source file's page links the crashes located in it.
        let index = try Chromium.load(output.appendingPathComponent("index.html"), in: folder)
        index.assertClean()
        XCTAssertEqual(try index.text("//nav[@class='tabs']/a[@href='tests.html']"), "Tests")
        let source = try Chromium.load(output.appendingPathComponent("files/Sources.Crashy.Crashy.swift.html"), in: folder)
        source.assertClean()
        let box = "//section[@data-section='test-failures']"
        XCTAssertEqual(try source.text("count(\(box)//li)"), "2")
        XCTAssertEqual(try source.text("\(box)//li[1]/a[@class='ts-test-link']/@href"), "../tests.html#t2-crash")
        XCTAssertEqual(try source.text("\(box)//li[1]/a[@class='ts-test-link']"), "testB_crashes")
        XCTAssertEqual(try source.text("\(box)//li[1]/a[@class='ts-line']/@href"), "#L8")
        XCTAssertEqual(try source.text("\(box)//li[2]/a[@class='ts-line']/@href"), "#L12")
        XCTAssertEqual(try source.text("\(box)//li[2]/a[@class='ts-test-link']"), "unwrapsNil()")
        // A test file's page links its failing expectations; each target exists on the Tests page.
        let swiftTests = try Chromium.load(output.appendingPathComponent("files/Tests.CrashyTests.CrashySwiftTests.swift.html"), in: folder)
        swiftTests.assertClean()
        XCTAssertEqual(try swiftTests.text("count(\(box)//li)"), "2")
        let targets = try (1...2).map { try swiftTests.text("\(box)//li[\($0)]/a[@class='ts-test-link']/@href") }
        for target in targets {
            let anchor = String(try XCTUnwrap(target.split(separator: "#").last))
            XCTAssertTrue(target.hasPrefix("../tests.html#"), target)
            XCTAssertEqual(try tests.text("count(//*[@id='\(anchor)'])"), "1", "tests.html has #\(anchor)")
        }
        let followed = try Chromium.load(output.appendingPathComponent("tests.html"), fragment: "t10-crash", in: folder)
        followed.assertClean()
        XCTAssertEqual(try followed.text("//div[@id='t10-crash']/preceding::h3[1]//span[@class='ts-name']"), "unwrapsNil()")
    }

    func testTestsOnlyReportHasAnIndexThatLinksTheTestsPage() throws {
        let output = folder.appendingPathComponent("tests-only")
        let result = try TestscopeProcess.run(try Self.reportArguments(coverage: false) + ["--output", output.path])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stdout.contains("HTML report: \(output.path)/index.html (tests only, no coverage)"), result.stdout)
        let index = try Chromium.load(output.appendingPathComponent("index.html"), in: folder)
        index.assertClean()
        XCTAssertEqual(try index.text("//a[@class='ts-open']/@href"), "tests.html")
        XCTAssertEqual(try index.text("count(//nav[@class='tabs']/a)"), "1", "Tests only: no Coverage link")
        let tests = try Chromium.load(output.appendingPathComponent("tests.html"), in: folder)
        tests.assertClean()
        try assertCounts(tests, json: try Self.testsJSON(output))
        XCTAssertEqual(try tests.text("string(//nav[@class='tabs'])").trimmingCharacters(in: .whitespacesAndNewlines), "Tests")
    }

    func testSingleFileReportHasTheTestsView() throws {
        let output = folder.appendingPathComponent("single")
        let result = try TestscopeProcess.run(try Self.reportArguments() + ["--output", output.path, "--html-single-file", "--format", "html,json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let page = try Chromium.load(output.appendingPathComponent("index.html"), fragment: "tests-t2-crash", in: folder)
        page.assertClean()
        XCTAssertEqual(try page.text("//section[@id='tests']/@class"), "view active")
        XCTAssertEqual(try page.text("//section[@id='index']/@class"), "view")
        XCTAssertEqual(try page.text("//nav[@class='tabs']/a[@aria-current='page']"), "Tests")
        try assertCounts(page, json: try Self.testsJSON(output), prefix: "tests-")
        XCTAssertEqual(try page.text("count(//section[@data-view='file']//a[@href='#tests-t2-crash'])"), "1", "the file view links into the Tests view")
    }

    /// Markup in a log's messages, output and skip reasons stays text in the browser.
    func testHostileLogIsTextInChromium() throws {
        let message = #"XCTAssertTrue failed - <script>alert("x&y")</script></textarea><img src=x onerror=alert(2)>"#
        let log = folder.appendingPathComponent("evil.log")
        try """
        Test Suite 'All tests' started at 2026-11-21 08:17:17.229
        Test Suite 'Evil' started at 2026-11-21 08:17:17.230
        Test Case 'Evil.testX' started at 2026-11-21 08:17:17.232
        <b onmouseover="alert(4)">printed</b>
        /tmp/<i>x</i>.swift:3: error: Evil.testX : \(message)
        Test Case 'Evil.testX' failed (0.001 seconds)
        Test Case 'Evil.testY' started at 2026-11-21 08:17:17.233
        /tmp/e.swift:4: Evil.testY : Test skipped - <img src=x onerror=alert(3)>
        Test Case 'Evil.testY' skipped (0.000 seconds)
        Test Suite 'Evil' failed at 2026-11-21 08:17:17.234
        """.write(to: log, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("evil")
        let result = try TestscopeProcess.run(["report", "--test-log", log.path, "--output", output.path, "--format", "html"])
        XCTAssertEqual(result.status, 1, result.stderr)
        for name in ["tests.html", "index.html"] {
            let page = try Chromium.load(output.appendingPathComponent(name), in: folder)
            page.assertClean()
            XCTAssertEqual(try page.text("count(//script)"), "2", "\(name): no injected script element")
            XCTAssertEqual(try page.text("count(//img) + count(//b) + count(//i) + count(//textarea)"), "0", "\(name): no injected element")
        }
        let page = try Chromium.load(output.appendingPathComponent("tests.html"), in: folder)
        XCTAssertEqual(try page.text("//div[@id='t1-1']/p[@class='ts-message']"), message)
        XCTAssertEqual(try page.text("//div[@id='t1-1']//figcaption/following-sibling::p[@class='notice']"),
                       "The source file /tmp/<i>x</i>.swift could not be read (deleted or moved since the run), so its lines are not shown.")
        XCTAssertEqual(try page.text("//details[@class='ts-output']/pre"), #"<b onmouseover="alert(4)">printed</b>"#)
        XCTAssertEqual(try page.text("//tr[@data-test='Evil/testY']/td[@class='ts-reason']"), "<img src=x onerror=alert(3)>")
    }

    /// A real `testscope run` with a crashing and a hanging test: the crash, the timeout and its limit.
    func testRealRunWithCrashAndTimeout() throws {
        let output = folder.appendingPathComponent("run")
        let result = try TestscopeProcess.run(
            ["run", "--package-path", Self.crashy.path, "--output", output.path, "--format", "json,html", "--test-timeout", "3"],
            environment: ["CRASHY_CRASH": "1", "CRASHY_HANG": "1"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let json = try Self.testsJSON(output)
        XCTAssertEqual(json.summary["timed-out"], 1)
        XCTAssertEqual(json.summary["crashed"], 2)
        let tests = try Chromium.load(output.appendingPathComponent("tests.html"), in: folder)
        tests.assertClean()
        try assertCounts(tests, json: json)
        let hung = "//article[@data-test='CrashyTests.CrashyXCTests/testD_hangsWhenAsked']"
        XCTAssertEqual(try tests.text("\(hung)/@data-outcome"), "timed-out")
        XCTAssertTrue(try tests.text("\(hung)//dt[.='Time limit']/following-sibling::dd[1]").hasPrefix("3.000 s (--test-timeout)"))
        XCTAssertEqual(try tests.text("\(hung)//dt[.='Signal']/following-sibling::dd[1]"), "9 (SIGKILL)")
        XCTAssertEqual(try tests.text("//article[@data-test='CrashyTests.CrashySuite/unwrapsNil()']//dt[.='Fatal error']/following-sibling::dd[1]"),
                       "Crashy/Crashy.swift:12: Fatal error: Unexpectedly found nil while unwrapping an Optional value")
        XCTAssertTrue(try tests.text("//p[@class='notice']").contains("relaunched"))
        let source = try Chromium.load(output.appendingPathComponent("files/Sources.Crashy.Crashy.swift.html"), in: folder)
        source.assertClean()
        XCTAssertEqual(try source.text("count(//section[@data-section='test-failures']//li)"), "2", "both crashes are in Crashy.swift")
    }
}

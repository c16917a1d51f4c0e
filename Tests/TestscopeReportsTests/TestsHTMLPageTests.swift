import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution
@testable import TestscopeReports
@testable import TestscopeTestResults

/// The recorded Crashy results (normal and crash runs) and the Tests page rendered from them.
enum TestsHTMLFixture {
    static let repoRoot = ReportGoldenTests.repoRoot
    static var packageRoot: String { repoRoot.path + "/sample-profiles/packages/Crashy" }

    /// The results `testscope report --test-log … --event-stream … --test-list …` imports, with the
    /// recording's absolute root mapped onto this checkout.
    static func results(crash: Bool) throws -> TestRunResults {
        let recorded = repoRoot.appendingPathComponent("sample-profiles/recorded/Crashy")
        func text(_ name: String) throws -> String { try String(contentsOf: recorded.appendingPathComponent(name), encoding: .utf8) }
        let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: recorded.appendingPathComponent("meta.json"))) as? [String: Any]
        let recordedRoot = try XCTUnwrap(meta?["packageRoot"] as? String)
        let prefix = crash ? "crash-" : ""
        let log = try text("\(prefix)swift-test.log").replacingOccurrences(of: recordedRoot, with: packageRoot)
        let events = try text("\(prefix)swift-testing-events.jsonl").replacingOccurrences(
            of: recordedRoot.replacingOccurrences(of: "/", with: "\\/"), with: packageRoot.replacingOccurrences(of: "/", with: "\\/"))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tests-html-input-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try log.write(to: dir.appendingPathComponent("log"), atomically: true, encoding: .utf8)
        try events.write(to: dir.appendingPathComponent("events"), atomically: true, encoding: .utf8)
        var run = try TestResultImporter.combined(logs: [dir.appendingPathComponent("log")], streams: [dir.appendingPathComponent("events")],
                                                  junit: [], testList: TestList.parse(try text("test-list.txt")))
        run.startedAt = Date(timeIntervalSince1970: 1_795_000_000)
        run.properties = [("toolchain", "Swift 6.3.1")]
        return run
    }

    /// Durations differ between recordings (and a crashed test's is measured up to the import): fixed,
    /// distinct values; addresses in crash evidence masked.
    static func normalized(_ run: TestRunResults) -> TestRunResults {
        var run = run
        for i in run.results.indices {
            if run.results[i].duration != nil { run.results[i].duration = Double((i * 7) % 11 + 1) / 100 }
            if var crash = run.results[i].crash {
                crash.reason = crash.reason.map { $0.replacingOccurrences(of: #"0x[0-9a-f]+"#, with: "0x…", options: .regularExpression) }
                crash.frames = crash.frames.map { $0.replacingOccurrences(of: #"0x[0-9a-f]+"#, with: "0x…", options: .regularExpression) }
                run.results[i].crash = crash
            }
        }
        return run
    }

    static func page(navigation: [HTMLNavigationItem] = [.coverage, .tests]) throws -> TestsHTMLPage {
        TestsHTMLPage(templates: try HTMLTemplates.builtIn(), navigation: navigation, generatorVersion: "test",
                      packageRoot: packageRoot, createdAt: Date(timeIntervalSince1970: 0))
    }

    /// `<tag … attribute="value" …>` values in document order, e.g. the `data-test` of the rows of one table.
    static func attributes(_ attribute: String, in html: String, after marker: String, before end: String) -> [String] {
        let from = marker.isEmpty ? html.startIndex : html.range(of: marker)?.upperBound
        guard let from, let stop = html.range(of: end, range: from..<html.endIndex) else { return [] }
        let part = String(html[from..<stop.lowerBound])
        let regex = try! NSRegularExpression(pattern: " \(attribute)=\"([^\"]*)\"")
        let ns = part as NSString
        return regex.matches(in: part, range: NSRange(location: 0, length: ns.length)).map { ns.substring(with: $0.range(at: 1)) }
    }

    static func decode(_ text: String) -> String { HTMLTestSupport.text(text) }

    /// What the page shows of a result's id and arguments: `data-test` holds the id.
    static func label(_ r: TestCaseResult) -> String { r.caseName }
}

/// The Tests page on the recorded Crashy runs: a golden of each, and what it must show.
final class TestsHTMLPageTests: XCTestCase {
    func testGoldensOfTheRecordedRuns() throws {
        for crash in [false, true] {
            let run = TestsHTMLFixture.normalized(try TestsHTMLFixture.results(crash: crash))
            var html = try TestsHTMLFixture.page().renderString(run)
            // The shared assets inlined in the page have goldens of their own (the templates): left out here.
            let assets = try HTMLTemplates.builtIn().assets
            for name in ["head.js", "report.css", "report.js"] {
                let inlined = HTMLEscaping.inlineElementText(assets[name] ?? "")
                XCTAssertEqual(html.components(separatedBy: inlined).count, 2, "\(name) inlined once")
                html = html.replacingOccurrences(of: inlined, with: "/* \(name), inlined */")
            }
            try Golden.assertMatches(ReportGoldenTests.normalized(html), "Crashy/tests-\(crash ? "crash" : "normal").html")
        }
    }

    func testEveryResultIsListedFailuresFirst() throws {
        for crash in [false, true] {
            let run = try TestsHTMLFixture.results(crash: crash)
            let html = try TestsHTMLFixture.page().renderString(run)
            let rows = TestsHTMLFixture.attributes("data-outcome", in: html, after: "<table class=\"grid ts-all sortable\">", before: "</table>")
            XCTAssertEqual(rows.count, run.results.count, "one row per result")
            let ranks = rows.compactMap { TestOutcome(rawValue: $0) }.map(TestsHTMLModel.rank)
            XCTAssertEqual(ranks, ranks.sorted(), "crashes, timeouts and failures first")
            XCTAssertEqual(rows.sorted(), run.results.map(\.outcome.rawValue).sorted())
            let ids = TestsHTMLFixture.attributes("data-test", in: html, after: "<table class=\"grid ts-all sortable\">", before: "</table>")
            XCTAssertEqual(ids.sorted(), run.results.map(\.id).sorted())
            // The counts equal the model's.
            for outcome in TestOutcome.allCases {
                XCTAssertTrue(html.contains("data-outcome=\"\(outcome.rawValue)\">\n    <div class=\"card-title\">\(TestsHTMLModel.cardLabel(outcome))</div>\n    <div class=\"card-value\">\(run.count(outcome))</div>"), outcome.rawValue)
            }
            // The failures section lists exactly the failing results, before every other section.
            let failing = run.results.filter { $0.outcome.isFailure }
            let articles = TestsHTMLFixture.attributes("data-test", in: html, after: "data-section=\"failures\"", before: "data-section=\"known\"")
            XCTAssertEqual(articles, failing.map(\.id))
            for section in ["known", "skipped", "slowest", "metrics", "all"] {
                XCTAssertLessThan(html.range(of: "data-section=\"failures\"")!.lowerBound, html.range(of: "data-section=\"\(section)\"")!.lowerBound)
            }
            // Messages, details and locations of every failing issue.
            for result in failing {
                for issue in result.issues where issue.isFailure {
                    XCTAssertTrue(html.contains(HTMLEscaping.escape(issue.message)), issue.message)
                    for detail in issue.details { XCTAssertTrue(html.contains("<li>\(HTMLEscaping.escape(detail))</li>")) }
                    let place = PathDisplay(root: TestsHTMLFixture.packageRoot).relative(issue.location!.file)
                    XCTAssertTrue(html.contains("at <code>\(place):\(issue.location!.line)"), place)
                }
            }
            // Parameterized cases as name [arguments].
            for result in run.results where result.arguments != nil {
                XCTAssertTrue(html.contains("<span class=\"ts-name\">\(HTMLEscaping.escape(result.caseName))</span>"), result.caseName)
            }
        }
    }

    func testCrashEvidence() throws {
        let run = try TestsHTMLFixture.results(crash: true)
        let html = try TestsHTMLFixture.page().renderString(run)
        // The two planted crashes carry their evidence. (Other Swift Testing tests that happened to be in
        // flight when the process died are also `crashed`, with only an "in flight" reason: which ones
        // depends on the parallel timing of the recording.)
        let crashed = run.results.filter { $0.outcome == .crashed && $0.crash?.fatalError != nil }
        XCTAssertEqual(crashed.map(\.id), ["CrashyTests.CrashyXCTests/testB_crashes", "CrashyTests.CrashySuite/unwrapsNil()"])
        for other in run.results where other.outcome == .crashed && other.crash?.fatalError == nil {
            XCTAssertTrue(other.crash?.reason?.contains("in flight") ?? false, other.id)
        }
        for result in crashed {
            let crash = try XCTUnwrap(result.crash)
            let index = try XCTUnwrap(run.results.firstIndex(of: result))
            let start = try XCTUnwrap(html.range(of: "<div class=\"ts-crash\" id=\"t\(index + 1)-crash\">"))
            let block = String(html[start.lowerBound...]).components(separatedBy: "</article>")[0]
            XCTAssertTrue(block.contains("<dt>Signal</dt><dd>4 (SIGILL)</dd>"))
            XCTAssertTrue(block.contains("<dt>Fatal error</dt><dd><code>\(HTMLEscaping.escape(crash.fatalError!))</code></dd>"))
            XCTAssertTrue(block.contains("<dt>Crash</dt><dd>\(HTMLEscaping.escape(crash.reason!))</dd>"))
            XCTAssertFalse(crash.frames.isEmpty)
            for frame in crash.frames { XCTAssertTrue(block.contains("<li>\(HTMLEscaping.escape(frame))</li>"), frame) }
            XCTAssertTrue(block.contains("<figcaption><code>Sources/Crashy/Crashy.swift</code>, line \(crash.location!.line)</figcaption>"))
        }
    }

    func testTimeoutShowsItsLimit() throws {
        let timedOut = TestCaseResult(id: "M.Slow/testHangs", framework: .xctest, module: "M", suite: "Slow", name: "testHangs",
                                      outcome: .timedOut, duration: 3,
                                      crash: CrashEvidence(signal: 9, reason: "killed after the 3 s timeout"))
        let html = try TestsHTMLFixture.page().renderString(TestRunResults(results: [timedOut], relaunches: 1))
        XCTAssertTrue(html.contains("<dt>Time limit</dt><dd>3.000 s (<code>--test-timeout</code>): the test was killed</dd>"), html)
        XCTAssertTrue(html.contains("<dt>Signal</dt><dd>9 (SIGKILL)</dd>"))
        XCTAssertTrue(html.contains("<dt>Reason</dt><dd>killed after the 3 s timeout</dd>"))
        XCTAssertTrue(html.contains("<span class=\"ts-badge timed-out\">timed out</span>"))
        XCTAssertTrue(html.contains("The test binary was relaunched 1 time after a crash or a timeout"))
        XCTAssertTrue(html.contains("data-outcome=\"timed-out\">\n    <div class=\"card-title\">Timed out</div>\n    <div class=\"card-value\">1</div>"))
    }

    func testSkipReasonsAndKnownIssues() throws {
        let run = try TestsHTMLFixture.results(crash: false)
        let html = try TestsHTMLFixture.page().renderString(run)
        let skipped = run.results.filter { $0.outcome == .skipped }
        XCTAssertEqual(Set(skipped.compactMap(\.skipReason)), ["not on this platform", "not ready yet"])
        let section = html.components(separatedBy: "data-section=\"skipped\"")[1].components(separatedBy: "</section>")[0]
        for result in skipped {
            XCTAssertTrue(section.contains("<td class=\"ts-reason\">\(result.skipReason!)</td>"), result.id)
            XCTAssertTrue(section.contains("data-test=\"\(result.id)\""))
        }
        let known = html.components(separatedBy: "data-section=\"known\"")[1].components(separatedBy: "</section>")[0]
        XCTAssertTrue(known.contains("data-test=\"CrashyTests.CrashySuite/knownIssue()\" data-outcome=\"expected-failure\""))
        XCTAssertTrue(known.contains(HTMLEscaping.escape("Expectation failed: (Crashy.double(2) → 4) == 5")))
        XCTAssertTrue(known.contains("<li>tracked elsewhere</li>"))
        XCTAssertFalse(html.components(separatedBy: "data-section=\"failures\"")[1].components(separatedBy: "</section>")[0]
            .contains("knownIssue()"), "a known issue is not a failure")
    }

    func testTwentySlowestInOrder() throws {
        let results = (0..<30).map { i in
            TestCaseResult(id: "M.S/test\(i)", framework: .xctest, module: "M", suite: "S", name: "test\(i)",
                           outcome: i % 4 == 0 ? .failed : .passed, duration: Double((i * 17) % 30) / 10)
        } + [TestCaseResult(id: "M.S/noDuration", framework: .xctest, module: "M", suite: "S", name: "noDuration", outcome: .passed)]
        let html = try TestsHTMLFixture.page().renderString(TestRunResults(results: results))
        let listed = TestsHTMLFixture.attributes("data-test", in: html, after: "<table class=\"grid ts-slowest\">", before: "</table>")
        let expected = results.filter { $0.duration != nil }.sorted { $0.duration! > $1.duration! }.prefix(20).map(\.id)
        XCTAssertEqual(listed, Array(expected))
        XCTAssertTrue(html.contains("<td class=\"num\">1</td><td class=\"num\">2.900 s</td>"))
        // On the recording: longest first, every timed result when there are fewer than 20.
        let run = try TestsHTMLFixture.results(crash: false)
        let page = try TestsHTMLFixture.page().renderString(run)
        let recorded = TestsHTMLFixture.attributes("data-test", in: page, after: "<table class=\"grid ts-slowest\">", before: "</table>")
        XCTAssertEqual(recorded.count, run.results.filter { $0.duration != nil }.count)
        let durations = recorded.map { id in run.results.first { $0.id == id }!.duration! }
        XCTAssertEqual(durations, durations.sorted(by: >))
    }

    func testPerformanceMetrics() throws {
        let run = try TestsHTMLFixture.results(crash: false)
        let measured = try XCTUnwrap(run.results.first { $0.id == "CrashyTests.CrashyXCTests/testF_measures" })
        let metric = try XCTUnwrap(measured.metrics.first)
        XCTAssertEqual(metric.values.count, 10)
        let html = try TestsHTMLFixture.page().renderString(run)
        let section = html.components(separatedBy: "data-section=\"metrics\"")[1].components(separatedBy: "</section>")[0]
        XCTAssertTrue(section.contains("<td>Time</td><td>seconds</td>"), section)
        XCTAssertTrue(section.contains("<td class=\"num\">\(TestsHTMLModel.number(metric.relativeStandardDeviation))%</td>"))
        XCTAssertTrue(section.contains(">\(metric.values.map(TestsHTMLModel.number).joined(separator: ", "))</td>"))
        XCTAssertTrue(section.contains(TestsHTMLModel.number(metric.values[0])))
        // The log prints the average as 0.000 for this sub-millisecond block: the mean of the values is shown.
        let mean = metric.values.reduce(0, +) / Double(metric.values.count)
        XCTAssertTrue(section.contains(">\(TestsHTMLModel.number(metric.average == 0 ? mean : metric.average))</td>"))
        XCTAssertEqual(TestsHTMLModel.number(0.000322), "0.000322")
        XCTAssertEqual(TestsHTMLModel.number(32.908), "32.908")
        XCTAssertEqual(TestsHTMLModel.number(1500), "1500")
    }

    /// Every snippet row is the real source line, ±3 around the failing line, which is marked.
    func testSourceSnippetsAreTheSourceLines() throws {
        var checked = 0
        for crash in [false, true] {
            let html = try TestsHTMLFixture.page().renderString(try TestsHTMLFixture.results(crash: crash))
            let figures = html.components(separatedBy: "<figure class=\"ts-snippet\"").dropFirst()
            XCTAssertFalse(figures.isEmpty)
            for figure in figures {
                let file = try XCTUnwrap(TestsHTMLFixture.attributes("data-file", in: "<x" + figure, after: "<x", before: ">").first)
                let line = try XCTUnwrap(Int(TestsHTMLFixture.attributes("data-line", in: "<x" + figure, after: "<x", before: ">").first ?? ""))
                let source = try XCTUnwrap(SourceText.read(URL(fileURLWithPath: TestsHTMLFixture.packageRoot + "/" + file)))
                let regex = try NSRegularExpression(pattern: #"<tr class="(ts-hit)?" data-line="(\d+)"><td class="ln">\d+</td><td class="code">(.*)</td></tr>"#)
                let ns = figure as NSString
                let rows = regex.matches(in: figure, range: NSRange(location: 0, length: ns.length))
                let numbers = rows.map { Int(ns.substring(with: $0.range(at: 2)))! }
                XCTAssertEqual(numbers, Array(max(1, line - 3)...min(source.lineCount, line + 3)), "\(file):\(line)")
                for (row, number) in zip(rows, numbers) {
                    XCTAssertEqual(TestsHTMLFixture.decode(ns.substring(with: row.range(at: 3))), source.line(number), "\(file):\(number)")
                    XCTAssertEqual(row.range(at: 1).location != NSNotFound, number == line, "only the failing line is marked")
                }
                checked += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 6)
    }

    func testMissingOrChangedSourceIsSaid() throws {
        let missing = TestCaseResult(id: "M.S/a", framework: .xctest, module: "M", suite: "S", name: "a", outcome: .failed,
                                     issues: [TestIssue(kind: .failure, message: "gone", location: SourceLocation(file: "/nonexistent/Gone.swift", line: 4))])
        let past = TestCaseResult(id: "M.S/b", framework: .xctest, module: "M", suite: "S", name: "b", outcome: .failed,
                                  issues: [TestIssue(kind: .failure, message: "moved",
                                                     location: SourceLocation(file: TestsHTMLFixture.packageRoot + "/Sources/Crashy/Crashy.swift", line: 999))])
        let html = try TestsHTMLFixture.page().renderString(TestRunResults(results: [missing, past]))
        XCTAssertTrue(html.contains("The source file /nonexistent/Gone.swift could not be read (deleted or moved since the run), so its lines are not shown."))
        let lines = try XCTUnwrap(SourceText.read(URL(fileURLWithPath: TestsHTMLFixture.packageRoot + "/Sources/Crashy/Crashy.swift"))).lineCount
        XCTAssertTrue(html.contains("The source has \(lines) lines but the failure is on line 999: it changed since the run."), html)
    }

    func testHostileNamesMessagesAndOutputAreEscaped() throws {
        let evil = "<script>alert(\"x&y\")</script>"
        let hostile = TestCaseResult(
            id: "M.\(evil)/t", framework: .swiftTesting, module: "M", suite: evil, name: evil, displayName: evil, arguments: "v → \(evil)",
            outcome: .crashed, duration: 1, issues: [TestIssue(kind: .failure, message: evil, details: [evil],
                                                               location: SourceLocation(file: "/tmp/\(evil).swift", line: 1))],
            output: [evil, "</pre><img src=x onerror=alert(1)>"],
            metrics: [PerformanceMetric(name: evil, unit: evil, values: [1], average: 1, relativeStandardDeviation: 0)],
            crash: CrashEvidence(signal: 11, fatalError: evil, reason: evil, frames: [evil], location: SourceLocation(file: "/tmp/\(evil)", line: 2)))
        let skipped = TestCaseResult(id: "M.S/s", framework: .xctest, module: "M", suite: "S", name: "s", outcome: .skipped, skipReason: evil)
        var run = TestRunResults(results: [hostile, skipped])
        run.properties = [(evil, evil)]
        let html = try TestsHTMLFixture.page().renderString(run)
        XCTAssertFalse(html.contains("<script>alert"), "no script element from the run")
        XCTAssertFalse(html.contains("<img"), "no element from the output")
        XCTAssertEqual(html.components(separatedBy: "<script").count - 1, 2, "head.js and report.js only")
        let escaped = "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;"
        XCTAssertGreaterThanOrEqual(html.components(separatedBy: escaped).count - 1, 15, "each place shows the text, escaped")
        XCTAssertTrue(html.contains("<p class=\"ts-message\">\(escaped)</p>"))
        XCTAssertTrue(html.contains("<pre>\(escaped)\n&lt;/pre&gt;&lt;img src=x onerror=alert(1)&gt;</pre>"))
        XCTAssertTrue(html.contains("<td class=\"ts-reason\">\(escaped)</td>"))
        XCTAssertTrue(html.contains("<span class=\"ts-name\">\(escaped) [v → \(escaped)]</span>"))
        // The coverage page's box escapes them too.
        let box = try XCTUnwrap(TestFailureIndex(run).box(path: "/tmp/\(evil).swift", testsHref: "../tests.html", anchorPrefix: "",
                                                          anchorHref: { "../tests.html#\($0)" }, lineHref: { "#L\($0)" }))
        let rendered = try HTMLTemplates.builtIn().render("file-failures", FailureBoxContext(testFailures: box))
        XCTAssertFalse(rendered.contains("<script>alert"))
        XCTAssertTrue(rendered.contains(">\(escaped) [v → \(escaped)]</a>: <span class=\"ts-msg\">\(escaped)</span>"), rendered)
    }
}

/// `file-failures.mustache`'s context on a file page: the box under `testFailures`.
private struct FailureBoxContext: HTMLViewModel {
    var testFailures: FailureBoxModel

    func child(named name: String) -> Any? { name == "testFailures" ? testFailures : nil }
}

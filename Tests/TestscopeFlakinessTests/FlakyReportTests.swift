import Foundation
import TestscopeExecution
import TestscopeFlakiness
import TestscopeReports
import TestscopeTestSupport
import TestscopeTestResults
import XCTest

/// HTML text escaping as the templates do it (`&`, `<`, `>`, `"`, `'`), for expected strings.
enum HTMLEscapingForTests {
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }
}

/// flaky.json, flaky-junit.xml, flaky.html and the terminal table, from a simulated suite whose test
/// names are markup: contents checked against the findings, JUnit validated against Jenkins' schema,
/// everything from the package escaped in the HTML.
final class FlakyReportTests: XCTestCase {
    static let victim = "M.Cache/test<script>alert(1)</script>"
    static let polluter = "M.Cache/testPolluter"
    static let brittle = "M.Session/it's \"brittle\" & <b>"
    static let setter = "M.Auth/testSetter"
    static let fails = "M.Legacy/testFails"
    static let stable = "M.Math/testAdds"
    static let tests = [victim, polluter, brittle, setter, fails, stable, "M.Legacy/testSkipped"]

    func report() throws -> FlakyReport {
        let suite = SimulatedSuite()
        suite.victims[Self.victim] = .init(polluterGroups: [[Self.polluter]])
        suite.brittle[Self.brittle] = [Self.setter]
        suite.alwaysFails = [Self.fails]
        suite.skipped = ["M.Legacy/testSkipped"]
        let orders = OrderPlan(seed: 5, defaultOrder: Self.tests).orders(count: 6)
        let executions = try orders.map { try suite.run($0.tests) }
        let findings = try FlakinessAnalyzer(runner: suite, defaultOrder: Self.tests)
            .analyze(Self.tests.map { AnalyzedTest(id: $0, framework: .xctest, method: .inProcessOrder) }, executions: executions, jobs: 2)
        var report = FlakyReport(seed: 5, orders: orders, executions: executions, findings: findings, jobs: 2, packageRoot: "/pkg/Demo",
                                 binary: "/pkg/Demo/.build/testscope/debug/DemoPackageTests.xctest", swiftTestingMethod: .inProcessOrder,
                                 startedAt: Date(timeIntervalSince1970: 1_800_000_000),
                                 reproduction: Reproduction(testscopePrefix: "testscope flaky --package-path /pkg/Demo", binaryPath: "/pkg/bin.xctest"))
        report.findings[report.findings.firstIndex { $0.id == Self.brittle }!].quarantined = true
        return report
    }

    /// summary.md of `testscope flaky --format markdown`: every test that is not stable, its numbers, escaped.
    func testMarkdownSummaryListsTheFindings() throws {
        let report = try report()
        let md = try MarkdownSummary(packageRoot: "/pkg/Demo").renderString(SummaryContent(flaky: report))
        XCTAssertTrue(md.contains("**Flakiness** (seed 5, 6 runs): "), md)
        let shown = report.findings.filter { $0.classification != .stable && $0.classification != .skipped }
        XCTAssertEqual(shown.count, 3)
        for finding in shown {
            let label = finding.classification.rawValue + (finding.quarantined ? " (quarantined)" : "")
            XCTAssertTrue(md.contains(" | \(label) | \(finding.failedRuns)/\(finding.runs) | "), "\(finding.id): \(md)")
        }
        XCTAssertTrue(md.contains("M.Cache/test&lt;script&gt;alert(1)&lt;/script&gt;"), md)
        XCTAssertFalse(md.contains("<script>"))
        XCTAssertFalse(md.contains(Self.stable), "stable tests are not listed")
    }

    func testFlakyJSONHasTheDocumentedShape() throws {
        let report = try report()
        let text = try FlakyJSONReport(packageRoot: "/pkg/Demo").renderString(report)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(json["seed"] as? Int, 5)
        XCTAssertEqual(json["runs"] as? Int, 6)
        let tests = try XCTUnwrap(json["tests"] as? [[String: Any]])
        XCTAssertEqual(tests.compactMap { $0["id"] as? String }, Self.tests)
        let byID = Dictionary(uniqueKeysWithValues: tests.map { ($0["id"] as! String, $0) })
        let victim = try XCTUnwrap(byID[Self.victim])
        XCTAssertEqual(victim["classification"] as? String, "od-victim")
        XCTAssertEqual(victim["polluters"] as? [String], [Self.polluter])
        XCTAssertEqual(victim["setters"] as? [String], [])
        XCTAssertEqual(victim["runs"] as? Int, 6)
        XCTAssertEqual(victim["failedRuns"] as? Int, report.findings.first { $0.id == Self.victim }!.failedRuns)
        XCTAssertGreaterThan(victim["failedRuns"] as? Int ?? 0, 0)
        XCTAssertEqual(victim["reproduce"] as? String, "testscope flaky --package-path /pkg/Demo --order 'M.Cache/testPolluter,M.Cache/test<script>alert(1)</script>'")
        XCTAssertEqual((victim["outcomes"] as? [Any])?.count, 6)
        XCTAssertFalse((victim["evidence"] as? [[String: Any]] ?? []).isEmpty)
        let brittle = try XCTUnwrap(byID[Self.brittle])
        XCTAssertEqual(brittle["classification"] as? String, "od-brittle")
        XCTAssertEqual(brittle["setters"] as? [String], [Self.setter])
        XCTAssertEqual(brittle["quarantined"] as? Bool, true)
        XCTAssertEqual(byID[Self.fails]?["classification"] as? String, "consistent-failure")
        XCTAssertTrue(byID[Self.stable]?["reproduce"] is NSNull)
        // How soon a test failed, and what a stable test's passes rule out (1 − 0.05^(1/6) = 0.3930).
        let victimFinding = try XCTUnwrap(report.findings.first { $0.id == Self.victim })
        let firstFailure = try XCTUnwrap(victimFinding.verdicts.compactMap { $0 }.filter { $0 == .pass || $0 == .fail }.firstIndex(of: .fail)) + 1
        XCTAssertEqual(victim["runsToFirstFailure"] as? Int, firstFailure)
        XCTAssertTrue(victim["failureRateBound"] is NSNull)
        XCTAssertTrue(byID[Self.stable]?["runsToFirstFailure"] is NSNull)
        XCTAssertEqual(byID[Self.stable]?["runs"] as? Int, 6)
        XCTAssertEqual(byID[Self.stable]?["failureRateBound"] as? Double, 0.3930)
        XCTAssertEqual(report.stableConfidence, "passed at least 6 times each: < 39 % failure rate at 95 % (more --runs lower it)")
        XCTAssertEqual(byID["M.Legacy/testSkipped"]?["classification"] as? String, "skipped")
        let summary = try XCTUnwrap(json["summary"] as? [String: Int])
        XCTAssertEqual(summary["od-victim"], 1)
        XCTAssertEqual(summary["flaky"], 2)
        XCTAssertEqual(summary["quarantined"], 1)
        let orders = try XCTUnwrap(json["orders"] as? [[String: Any]])
        XCTAssertEqual(orders.map { $0["kind"] as? String }, ["default", "reverse", "class-shuffle", "method-shuffle", "class-shuffle", "method-shuffle"])
        XCTAssertEqual(orders[3]["replay"] as? String, "testscope flaky --package-path /pkg/Demo --seed 5 --replay 3 --runs 6")
        XCTAssertEqual(orders[2]["tests"] as? [String], report.orders[2].tests)
    }

    func testJUnitMarksFlakyAndRerunFailuresAndIsValid() throws {
        let report = try report()
        let xml = try FlakyJUnitReport(packageRoot: "/pkg/Demo", hostname: "ci").renderString(report)
        let victimFailures = report.findings.first { $0.id == Self.victim }!.failedRuns
        XCTAssertEqual(xml.components(separatedBy: "<flakyFailure ").count - 1,
                       victimFailures + report.findings.first { $0.id == Self.brittle }!.failedRuns)
        XCTAssertEqual(xml.components(separatedBy: "<failure ").count - 1, 1, "the consistent failure's first run")
        XCTAssertEqual(xml.components(separatedBy: "<rerunFailure ").count - 1, 5, "and its other runs")
        XCTAssertTrue(xml.contains("name=\"test&lt;script&gt;alert(1)&lt;/script&gt;\""))
        XCTAssertEqual(xml.components(separatedBy: "<testcase ").count - 1, Self.tests.count)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("flaky-junit-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: file) }
        try xml.write(to: file, atomically: true, encoding: .utf8)
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint"), "xmllint is required (apt-get install libxml2-utils)")
        for schema in ConsumerSchemas.flakyJUnit {
            let result = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/xmllint"), ["--noout", "--schema", schema.path, file.path])
            XCTAssertEqual(result.status, 0, "\(schema.lastPathComponent): \(result.stderrText)")
        }
    }

    func testHTMLPageEscapesEverythingAndLinksTheReport() throws {
        let report = try report()
        let page = FlakyHTMLPage(templates: try HTMLTemplates.builtIn(), navigation: [.coverage, .flaky], generatorVersion: "test", packageRoot: "/pkg/Demo")
        let html = try page.renderString(report)
        XCTAssertFalse(html.contains("<script>alert(1)"), "a test name is text, never markup")
        XCTAssertFalse(html.contains("<b>"))
        XCTAssertTrue(html.contains("test&lt;script&gt;alert(1)&lt;/script&gt;"))
        XCTAssertTrue(html.contains("<a href=\"flaky.html\" aria-current=\"page\">Flaky</a>"), "the Flaky page is current in the nav")
        XCTAssertTrue(html.contains("<a href=\"index.html\">Coverage</a>"))
        let confidence = try XCTUnwrap(report.stableConfidence)
        XCTAssertTrue(html.contains("<p class=\"note\" data-role=\"stable-confidence\">Stable tests \(confidence.replacingOccurrences(of: "<", with: "&lt;"))</p>"),
                      "what the stable tests' passes rule out, as on the terminal")
        XCTAssertFalse(html.contains("<link rel=\"stylesheet\""), "self-contained: CSS inlined")
        XCTAssertFalse(html.contains("http://") || html.contains("https://"), "offline")
        // The outcome matrix: one row per test, one cell per run.
        XCTAssertEqual(html.components(separatedBy: "<td class=\"o ").count - 1, Self.tests.count * report.orders.count)
        XCTAssertTrue(html.contains("data-section=\"evidence\""))
        XCTAssertTrue(html.contains("od-victim"))
        // Each run's counts come from the run's data (not from its progress line), worded like it.
        for (index, order) in report.orders.enumerated() {
            let line = FlakyDetector.line(order, report.executions[index], of: report.orders.count)
            let tally = report.tallies[index]
            XCTAssertEqual(line, "run \(order.index) (\(order.index + 1)/\(report.orders.count))  \(order.label)  \(tally.counts.joined(separator: ", "))  \(tally.time)")
            let summary = (tally.counts + [tally.time]).joined(separator: ", ")
            XCTAssertTrue(html.contains("<summary>Run \(order.index): \(HTMLEscapingForTests.escape(order.label)) — \(summary)</summary>"), summary)
        }
        XCTAssertEqual(report.tallies.map(\.passed), report.executions.map { $0.results.values.filter { Verdict($0.outcome) == .pass }.count })
        // Only the Flaky link when the folder's manifest lists no report beside it.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nav-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = OutputFolder(folder)
        XCTAssertEqual(PagesManifest.read(in: output).replacing(.flaky, with: page.pageKinds, command: "flaky", in: output).navigation, [.flaky])
        // An index.html that no command recorded is not linked (a file's existence says nothing).
        try Data().write(to: folder.appendingPathComponent("index.html"))
        XCTAssertEqual(PagesManifest.read(in: output).replacing(.flaky, with: [.flaky], command: "flaky", in: output).navigation, [.flaky])
        try PagesManifest(pages: [.init(kind: .coverage, file: "index.html", command: "report")]).write(into: output)
        XCTAssertEqual(PagesManifest.read(in: output).replacing(.flaky, with: [.flaky], command: "flaky", in: output).navigation, [.coverage, .flaky])
    }

    /// A proposed fix in flaky.json (documented keys), the HTML page (the diff escaped, in a `<pre>`) and
    /// flaky.txt (the whole diff, as `git apply` takes it), with what the rerun showed.
    func testProposedFixesAreInEveryReport() throws {
        var report = try report()
        let diff = "--- a/Tests/T.swift\n+++ b/Tests/T.swift\n@@ -1,1 +1,2 @@\n func t() {\n+    Box<Int>.reset(\"&\")\n"
        let victim = report.findings.firstIndex { $0.id == Self.victim }!, brittle = report.findings.firstIndex { $0.id == Self.brittle }!
        report.findings[victim].fix = ProposedFix(source: .cleaner, file: "Tests/T.swift", diff: diff, verification: .verified(runs: 3))
        report.findings[brittle].fix = ProposedFix(source: .setter, file: "Tests/T.swift", diff: diff,
                                                   verification: .notVerified("the failing order still fails (2 of 3)"))

        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(FlakyJSONReport(packageRoot: "/pkg/Demo").renderString(report).utf8)) as? [String: Any])
        let tests = try XCTUnwrap(json["tests"] as? [[String: Any]])
        let fixes = Dictionary(uniqueKeysWithValues: tests.map { ($0["id"] as! String, $0["fix"]) })
        let verified = try XCTUnwrap(fixes[Self.victim] as? [String: Any])
        XCTAssertEqual(verified["source"] as? String, "cleaner")
        XCTAssertEqual(verified["file"] as? String, "Tests/T.swift")
        XCTAssertEqual(verified["diff"] as? String, diff)
        XCTAssertEqual(verified["verification"] as? String, "verified")
        XCTAssertEqual(verified["verifiedRuns"] as? Int, 3)
        XCTAssertTrue(verified["why"] is NSNull)
        let notVerified = try XCTUnwrap(fixes[Self.brittle] as? [String: Any])
        XCTAssertEqual(notVerified["verification"] as? String, "not-verified")
        XCTAssertEqual(notVerified["why"] as? String, "the failing order still fails (2 of 3)")
        XCTAssertTrue(notVerified["verifiedRuns"] is NSNull)
        XCTAssertTrue(fixes[Self.stable] is NSNull)

        let html = try FlakyHTMLPage(templates: try HTMLTemplates.builtIn(), generatorVersion: "test", packageRoot: "/pkg/Demo").renderString(report)
        XCTAssertTrue(html.contains("<pre class=\"fl-diff\">\(HTMLEscapingForTests.escape(diff))</pre>"), html)
        XCTAssertFalse(html.contains("Box<Int>"))
        XCTAssertTrue(html.contains("cleaner&#39;s statements at the start of test&lt;script&gt;alert(1)&lt;/script&gt; — verified (3 of 3 passed)"))
        XCTAssertTrue(html.contains("data-fix=\"not-verified\""))

        let text = try FlakyTableReport(terminal: Terminal(useColor: false, showProgress: false, quiet: false)).renderString(report)
        XCTAssertTrue(text.contains("\(Self.victim): fix: cleaner's statements at the start of test<script>alert(1)</script> — verified (3 of 3 passed)\n" + diff), text)
        XCTAssertTrue(text.contains("fix: setter's statements at the start of it's \"brittle\" & <b> — not verified: the failing order still fails (2 of 3)\n"), text)
    }

    /// A fix from the shared state names the item it resets.
    func testAStateResetFixNamesTheState() {
        var finding = TestFinding(id: "M.RetryTests/testA_defaultAttempts", framework: .xctest, classification: .odVictim,
                                  method: .inProcessOrder, verdicts: [.pass, .fail])
        finding.sharedState = SharedStateFinding(items: [SharedStateItem(name: "retryLimit", kind: .global, writeSites: [], readSites: [],
                                                                         resetStatement: "retryLimit = 3")])
        finding.fix = ProposedFix(source: .stateReset, file: "Tests/T.swift", diff: "")
        XCTAssertEqual(FlakyText.fix(finding), "fix: reset of retryLimit at the start of testA_defaultAttempts — not verified (--verify-fixes reruns it)")
    }

    func testTerminalTableListsWhatIsNotStableWithSeedAndCommands() throws {
        let report = try report()
        let text = try FlakyTableReport(terminal: Terminal(useColor: false, showProgress: false, quiet: false)).renderString(report)
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines[0].hasPrefix("test") && lines[0].contains("classification") && lines[0].contains("reproduce"), lines[0])
        XCTAssertTrue(text.contains(Self.victim) && text.contains("od-victim") && text.contains("polluter: \(Self.polluter)"))
        XCTAssertTrue(text.contains("od-brittle (quarantined)") && text.contains("setter: \(Self.setter)"))
        XCTAssertFalse(text.contains(Self.stable + " "), "stable tests are not listed")
        XCTAssertTrue(text.contains("Seed 5: replay run K with `testscope flaky --package-path /pkg/Demo --seed 5 --replay K --runs 6`"), text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("2 stable") || $0.contains("1 od-victim") }, text)
    }

    /// A NOD test's failures per mode: counted from the runs each mode took, most telling mode first,
    /// and nothing when the runs took one mode.
    func testFailuresByModeSayWhichConditionsBringATestOut() throws {
        var report = try self.report()
        let finding = TestFinding(id: "M.T/testTiming", framework: .xctest, classification: .nod, method: .inProcessOrder,
                                  verdicts: [.pass, .fail, .pass, .pass, .fail, nil])
        XCTAssertNil(FlakyText.modeLine(finding, report), "one mode: nothing to compare")
        report.modes = NODMode.defaults
        report.orders = report.orders.map { var order = $0; order.mode = NODMode.mode(ofRun: order.index, in: NODMode.defaults); return order }
        let tally = FlakyText.failuresByMode(finding, report)
        XCTAssertEqual(tally.map { $0.mode }, [NODMode.plain, .stress, .parallel])
        XCTAssertEqual(tally.map { $0.failed }, [0, 2, 0])
        XCTAssertEqual(tally.map { $0.ran }, [2, 2, 1], "run 5 (parallel) did not run it")
        XCTAssertEqual(FlakyText.modeLine(finding, report), "failed under stress 2 of 2, plain 0 of 2, parallel 0 of 1")
    }
}

/// The failure-rate bound of a test that passed every run: the rate whose chance of n passes in a row is 5 %.
final class FailureRateBoundTests: XCTestCase {
    func testTheBoundIsTheRateAtWhichNPassesHaveAFivePercentChance() throws {
        for runs in [1, 4, 40, 170] {
            var finding = TestFinding(id: "M.C/test", framework: .xctest, classification: .stable, method: .inProcessOrder,
                                      verdicts: Array(repeating: .pass, count: runs))
            let bound = try XCTUnwrap(finding.failureRateBound)
            XCTAssertEqual(pow(1 - bound, Double(runs)), 0.05, accuracy: 1e-12, "\(runs) runs")
            finding.verdicts[runs - 1] = .fail
            XCTAssertNil(finding.failureRateBound)
            XCTAssertEqual(finding.runsToFirstFailure, runs)
        }
        let forty = TestFinding(id: "M.C/test", framework: .xctest, classification: .stable, method: .inProcessOrder,
                                verdicts: Array(repeating: .pass, count: 40) + [nil])
        XCTAssertEqual(forty.confidence(), "passed 40 times: < 7.2 % failure rate at 95 %")
        let modes = (0..<41).map { NODMode.mode(ofRun: $0, in: NODMode.defaults) }
        XCTAssertEqual(forty.confidence(modes: modes), "passed 40 times under 3 modes: < 7.2 % failure rate at 95 %")
    }
}

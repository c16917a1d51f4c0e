import Foundation
import TestscopeHistory
import TestscopeCoverage
import TestscopeExecution
import TestscopeKit
import TestscopeReports
import TestscopeTestResults
import TestscopeTestSupport
import XCTest

/// `run` with a test selection, failure labels and retries of untouched failures, in-process on real runs of
/// the Selection fixture (sample-profiles/packages/Selection): what it skips and why, in tests.json and
/// junit.xml read back by xmllint and junitparser, and a test failed by chance reported flaky.
final class SelectionRunTests: XCTestCase {
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("sample-profiles/packages/Selection")
    static let adds = "SelectionTests.ArithmeticTests/testAdds"
    static let greets = "SelectionTests.GreetingSuite/greets()"
    static let chanceXCTest = "SelectionTests.ChanceTests/testPassesOnSecondAttempt"
    static let chanceSwiftTesting = "SelectionTests.ChanceSuite/passesOnSecondAttempt()"
    static let reason = "not affected by the change"

    var work: URL!
    let console = CapturedConsole()

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("selection-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        unsetenv("SELECTION_CHANCE_DIR")
        try? FileManager.default.removeItem(at: work)
    }

    var pipeline: Pipeline {
        Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console),
                 environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
    }

    func request(_ name: String, perTest: Bool = false) -> RunRequest {
        var request = RunRequest(packageRoot: Self.package,
                                 settings: ReportSettings(formats: [.json, .junit, .markdown], output: work.appendingPathComponent(name)))
        request.perTestCoverage = perTest
        return request
    }

    func json(_ output: String) throws -> [String: Any] {
        let data = try Data(contentsOf: work.appendingPathComponent("\(output)/tests.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func tests(_ json: [String: Any]) throws -> [String: [String: Any]] {
        let list = try XCTUnwrap(json["tests"] as? [[String: Any]])
        return Dictionary(list.map { ($0["id"] as! String, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// xmllint's text of an XPath expression over a junit.xml.
    func xpath(_ expression: String, in output: String, file: String = "junit.xml") throws -> String {
        let xmllint = try XCTUnwrap(TestscopeExecution.Toolchain.findInPath("xmllint", environment: ProcessInfo.processInfo.environment))
        let result = try ProcessRunner.run(xmllint, (file.hasSuffix(".html") ? ["--html"] : []) + ["--xpath", expression, work.appendingPathComponent("\(output)/\(file)").path])
        return result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Validates the output's junit.xml with xmllint against our schema and the consumers' published ones:
    /// without the testcase `file`/`line` attributes (which only the non-strict file has, and no schema knows),
    /// against those that know Surefire's rerun elements; as `--junit-strict` renders it, against Ant's too.
    func validateJUnit(_ output: String) throws {
        let xmllint = try XCTUnwrap(TestscopeExecution.Toolchain.findInPath("xmllint", environment: ProcessInfo.processInfo.environment))
        let text = try String(contentsOf: work.appendingPathComponent("\(output)/junit.xml"), encoding: .utf8)
        let withoutPlaces = text.replacingOccurrences(of: #" file="[^"]*" line="[0-9]+""#, with: "", options: .regularExpression)
        let file = work.appendingPathComponent("\(output)-no-places.xml")
        try withoutPlaces.write(to: file, atomically: true, encoding: .utf8)
        let tests = try XCTUnwrap(lastOutcome?.tests)
        let strict = work.appendingPathComponent("\(output)-strict.xml")
        try JUnitReport(strict: true, packageRoot: Self.package.path).renderString(tests).write(to: strict, atomically: true, encoding: .utf8)
        for (xml, schemas) in [(file, ConsumerSchemas.flakyJUnit), (strict, ConsumerSchemas.strictJUnit)] {
            for schema in schemas {
                let result = try ProcessRunner.run(xmllint, ["--noout", "--schema", schema.path, xml.path])
                XCTAssertEqual(result.status, 0, "\(schema.lastPathComponent): \(result.stderrText)")
            }
        }
    }

    /// The outcome of the last `run` (its results, for the strict JUnit rendering).
    var lastOutcome: Outcome?

    /// A selection of one XCTest and one Swift Testing test, with and without per-test coverage: only those
    /// run, every other listed test is skipped with its reason in tests.json, junit.xml, the terminal and
    /// the Markdown summary, and the time saved is the skipped tests' durations of the full run before.
    func testSelectionRunsOnlyTheSelectedTestsAndReportsTheRestSkipped() throws {
        let full = try pipeline.run(request("full"))
        XCTAssertEqual(full.status, .success, console.diagnosticsText)
        let durations = try ShardTimings.read(work.appendingPathComponent("full/tests.json"))
        let all = Set(try XCTUnwrap(full.tests).results.map(\.id))
        XCTAssertTrue(all.isSuperset(of: [Self.adds, Self.greets, Self.chanceXCTest, Self.chanceSwiftTesting]), "\(all)")
        let skippedIDs = all.subtracting([Self.adds, Self.greets])
        var skips: [String: TestSelection.Skip] = [:]
        for id in skippedIDs { skips[id] = TestSelection.Skip(reason: Self.reason, recordedDuration: durations[id]) }
        let saved = skippedIDs.compactMap { durations[$0] }.reduce(0, +)

        for perTest in [false, true] {
            let name = perTest ? "selected-per-test" : "selected"
            var request = request(name, perTest: perTest)
            request.testSelection = TestSelection(skipped: skips)
            let outcome = try pipeline.run(request)
            lastOutcome = outcome
            XCTAssertEqual(outcome.status, .success, console.diagnosticsText)
            let results = try XCTUnwrap(outcome.tests).results
            XCTAssertEqual(Set(results.filter { $0.outcome == .passed }.map(\.id)), [Self.adds, Self.greets])
            XCTAssertEqual(Set(results.map(\.id)), all, "every listed test is reported")

            let json = try json(name)
            let byID = try tests(json)
            for id in skippedIDs {
                XCTAssertEqual(byID[id]?["outcome"] as? String, "skipped", id)
                XCTAssertEqual(byID[id]?["skipReason"] as? String, Self.reason, id)
            }
            let selection = try XCTUnwrap(json["selection"] as? [String: Any])
            XCTAssertEqual(selection["skipped"] as? Int, skippedIDs.count)
            XCTAssertEqual(try XCTUnwrap(selection["timeSaved"] as? Double), saved, accuracy: 0.0015)

            XCTAssertEqual(try xpath("count(//testcase/skipped[@message='\(Self.reason)'])", in: name), "\(skippedIDs.count)")
            XCTAssertEqual(try xpath("count(//testcase[@name='testAdds']/skipped)", in: name), "0")
            try validateJUnit(name)
            XCTAssertTrue(console.outputText.contains("\(skippedIDs.count) tests skipped: \(Self.reason) (saved about "), console.outputText)
            let summary = try String(contentsOf: work.appendingPathComponent("\(name)/summary.md"), encoding: .utf8)
            XCTAssertTrue(summary.contains("\(skippedIDs.count) tests skipped: \(Self.reason)"), summary)
            // `report` renders the run again from its artifacts and record: the skips come back with it.
            var again = ReportRequest(packageRoot: Self.package, settings: ReportSettings(formats: [.json], output: work.appendingPathComponent("\(name)-again")))
            again.from = work.appendingPathComponent(name)
            let reported = try XCTUnwrap(try pipeline.report(again).tests)
            XCTAssertEqual(Set(reported.results.filter { $0.skipReason == Self.reason }.map(\.id)), skippedIDs)
            XCTAssertEqual(try XCTUnwrap(try self.json("\(name)-again")["selection"] as? [String: Any])["timeSaved"] as? Double,
                           selection["timeSaved"] as? Double)
            if perTest {
                let perTestFile = try Data(contentsOf: work.appendingPathComponent("\(name)/per-test.json"))
                let coverage = try JSONDecoder().decode(PerTestCoverage.self, from: perTestFile)
                XCTAssertEqual(Set(coverage.contexts.map(\.id)).subtracting([PerTestCoverage.outsideTests]), [Self.adds, Self.greets])
            }
        }
    }

    /// The shards of a selective run cut only the selected tests; merged, each skipped test is there once, with its reason.
    func testShardsOfASelectionMergeWithEachSkipOnce() throws {
        let selected: Set<String> = [Self.adds, Self.greets, Self.chanceXCTest]
        var shards: [URL] = []
        for index in 1...2 {
            var request = request("shard-\(index)")
            request.testSelection = TestSelection(skipped: [Self.chanceSwiftTesting: .init(reason: Self.reason, recordedDuration: 0.5),
                "SelectionTests.ArithmeticTests/testAddsZero": .init(reason: "not selected"), "SelectionTests.GreetingSuite/shouts()": .init(reason: "not selected")])
            request.shard = TestShard(index: index, count: 2)
            XCTAssertEqual(try pipeline.run(request).status, .success, console.diagnosticsText)
            shards.append(work.appendingPathComponent("shard-\(index)"))
        }
        let merged = try XCTUnwrap(try pipeline.merge(MergeRequest(packageRoot: Self.package, shards: shards,
            settings: ReportSettings(formats: [.json], output: work.appendingPathComponent("merged")))).tests)
        XCTAssertEqual(Set(merged.results.filter { $0.outcome == .passed }.map(\.id)), selected)
        let skipped = merged.results.filter { $0.outcome == .skipped }
        XCTAssertEqual(skipped.count, 3)
        XCTAssertEqual(Dictionary(skipped.map { ($0.id, $0.skipReason ?? "") }, uniquingKeysWith: { a, _ in a }),
                       [Self.chanceSwiftTesting: Self.reason, "SelectionTests.ArithmeticTests/testAddsZero": "not selected",
                        "SelectionTests.GreetingSuite/shouts()": "not selected"])
        XCTAssertEqual(merged.notSelected.count, 3)
        XCTAssertEqual(merged.notSelected.compactMap(\.skip.recordedDuration), [0.5])
    }

    /// A test that fails by chance, labelled not touched: run again, it passes and is reported flaky (Surefire's
    /// flakyFailure in a passing testcase, valid and read by junitparser); the run succeeds, and with
    /// failOnFlaky its status is `.flaky` (exit 3).
    func testAnUntouchedFailureThatPassesOnARetryIsFlaky() throws {
        for failOnFlaky in [false, true] {
            let markers = work.appendingPathComponent("markers-\(failOnFlaky)")
            try FileManager.default.createDirectory(at: markers, withIntermediateDirectories: true)
            setenv("SELECTION_CHANCE_DIR", markers.path, 1)
            let name = "retried-\(failOnFlaky)"
            var request = request(name, perTest: true)
            request.settings.formats = [.json, .junit, .markdown, .html]
            let seen = Locked<[String]>([])
            request.failureLabeler = { coverage, failing in
                seen.withLock { $0 = failing }
                XCTAssertFalse(coverage.contexts.isEmpty)
                return Dictionary(uniqueKeysWithValues: failing.map { ($0, FailureLabel.notTouched) })
            }
            (request.retryUntouched, request.failOnFlaky) = (2, failOnFlaky)
            let history = work.appendingPathComponent("\(name).sqlite")
            try? FileManager.default.removeItem(at: history)
            request.settings.history = history
            let outcome = try pipeline.run(request)
            lastOutcome = outcome
            XCTAssertEqual(Set(seen.withLock { $0 }), [Self.chanceXCTest, Self.chanceSwiftTesting])
            XCTAssertEqual(outcome.status, failOnFlaky ? .flaky : .success, console.diagnosticsText)
            XCTAssertEqual(outcome.status.exitStatus, failOnFlaky ? 3 : 0)
            XCTAssertEqual(console.diagnosticsText.contains("2 test(s) passed only on a retry (flaky), and --fail-on-flaky is set"), failOnFlaky,
                           console.diagnosticsText)
            let tests = try XCTUnwrap(outcome.tests)
            XCTAssertEqual(Set(tests.flaky.map(\.id)), [Self.chanceXCTest, Self.chanceSwiftTesting])
            XCTAssertFalse(tests.hasFailures)
            // GitHub Actions: no error, a warning at each flaky test's failed attempt, with its label.
            let annotations = GitHubActionsReport(packageRoot: Self.package.path).annotations(tests)
            XCTAssertEqual(annotations.filter { $0.hasPrefix("::error") }, [])
            let warning = try XCTUnwrap(annotations.first { $0.contains("title=\(Self.chanceXCTest) flaky") }, "\(annotations)")
            XCTAssertTrue(warning.hasPrefix("::warning file=Tests/SelectionTests/"), warning)
            XCTAssertTrue(warning.hasSuffix("::failed, then passed on a retry; not touched by the change (likely flaky)"), warning)
            XCTAssertEqual(annotations.count, 2, "\(annotations)")

            let byID = try self.tests(try json(name))
            for id in [Self.chanceXCTest, Self.chanceSwiftTesting] {
                XCTAssertEqual(byID[id]?["outcome"] as? String, "passed", id)
                XCTAssertEqual(byID[id]?["flaky"] as? Bool, true, id)
                XCTAssertEqual((byID[id]?["otherAttempts"] as? [[String: Any]])?.count, 1, id)
                XCTAssertEqual((byID[id]?["failureLabel"] as? [String: Any])?["kind"] as? String, "not-touched", id)
            }
            XCTAssertEqual(try xpath("count(//testcase[@name='testPassesOnSecondAttempt']/flakyFailure)", in: name), "1")
            XCTAssertEqual(try xpath("count(//testcase[@name='passesOnSecondAttempt()']/flakyFailure)", in: name), "1")
            XCTAssertEqual(try xpath("count(//failure)", in: name), "0")
            // The Tests page: a Flaky section with each test's failed attempt and its label; no failure.
            XCTAssertEqual(try xpath("count(//section[@data-section='flaky']/article)", in: name, file: "tests.html"), "2")
            XCTAssertEqual(try xpath("count(//section[@data-section='flaky']//p[@data-label='not-touched'])", in: name, file: "tests.html"), "2")
            XCTAssertEqual(try xpath("count(//section[@data-section='failures']/article)", in: name, file: "tests.html"), "0")
            XCTAssertTrue(try xpath("string(//section[@data-section='flaky']/article[@data-test='\(Self.chanceXCTest)'])", in: name, file: "tests.html")
                .contains("Passed on attempt 2 of 2"))
            try validateJUnit(name)
            try checkJunitparser(name, expected: "tests=\(tests.results.count) failures=0 flaky=2")
            XCTAssertTrue(console.outputText.contains("FLAKY \(Self.chanceXCTest) — not touched by the change (likely flaky)"), console.outputText)
            let summary = try String(contentsOf: work.appendingPathComponent("\(name)/summary.md"), encoding: .utf8)
            XCTAssertTrue(summary.contains("| flaky test (passed on a retry) |"), summary)
            // `report` renders the run again as it ended: flaky, labelled, not failed (the retries' logs are not kept).
            var again = ReportRequest(packageRoot: Self.package, settings: ReportSettings(formats: [.junit], output: work.appendingPathComponent("\(name)-again")))
            again.from = work.appendingPathComponent(name)
            let reported = try pipeline.report(again)
            XCTAssertEqual(reported.status, .success, console.diagnosticsText)
            XCTAssertEqual(Set(try XCTUnwrap(reported.tests).flaky.map(\.id)), [Self.chanceXCTest, Self.chanceSwiftTesting])
            XCTAssertEqual(try XCTUnwrap(reported.tests).failureLabels[Self.chanceXCTest], .notTouched)
            XCTAssertEqual(try xpath("count(//flakyFailure)", in: "\(name)-again"), "2")
            // The history keeps both attempts, the failed one first: a pass and a fail on the same code, not a pass.
            let store = try HistoryStore(url: history, mode: .read, busyTimeout: 5)
            let record = try XCTUnwrap(try store.records().last)
            try store.close()
            XCTAssertEqual(record.run.failedCount, 0)
            for id in [Self.chanceXCTest, Self.chanceSwiftTesting] {
                XCTAssertEqual(record.executions.filter { $0.test == id }.map(\.outcome), ["failed", "passed"], id)
                XCTAssertEqual(HistoryAnalysis([record]).tests.first { $0.test == id }?.sameCodeDisagreements, 1, id)
            }
        }
    }

    /// A failure labelled touched by the change is never retried: it stays failed, with its label beside it.
    func testATouchedFailureIsNeverRetried() throws {
        setenv("SELECTION_CHANCE_DIR", work.path, 1)
        var request = request("touched", perTest: true)
        request.settings.formats = [.json, .junit, .markdown, .html]
        request.failureLabeler = { _, failing in Dictionary(uniqueKeysWithValues: failing.map { ($0, FailureLabel.touched("Sources/Selection/Selection.swift:1")) }) }
        request.retryUntouched = 3
        let outcome = try pipeline.run(request)
        XCTAssertEqual(outcome.status, .testsFailed, console.diagnosticsText)
        let tests = try XCTUnwrap(outcome.tests)
        XCTAssertEqual(Set(tests.results.filter(\.outcome.isFailure).map(\.id)), [Self.chanceXCTest, Self.chanceSwiftTesting])
        XCTAssertTrue(tests.otherAttempts.isEmpty)
        XCTAssertFalse(console.outputText.contains("again (retry"), console.outputText)
        let byID = try self.tests(try json("touched"))
        XCTAssertEqual((byID[Self.chanceXCTest]?["failureLabel"] as? [String: Any])?["text"] as? String, "touched by the change (Sources/Selection/Selection.swift:1)")
        XCTAssertEqual(try xpath("string(//testcase[@name='testPassesOnSecondAttempt']/failure/@message)", in: "touched")
            .hasSuffix("[touched by the change (Sources/Selection/Selection.swift:1)]"), true)
        XCTAssertTrue(console.outputText.contains("FAILED \(Self.chanceXCTest) — touched by the change"), console.outputText)
        XCTAssertEqual(try xpath("string(//article[@data-test='\(Self.chanceXCTest)']/p[@data-label='touched'])", in: "touched", file: "tests.html"),
                       "Touched by the change (Sources/Selection/Selection.swift:1)")
        let annotation = GitHubActionsReport(packageRoot: Self.package.path).annotations(tests).first { $0.contains(Self.chanceXCTest) }
        XCTAssertTrue(annotation?.contains("title=\(Self.chanceXCTest) failed — touched by the change (Sources/Selection/Selection.swift%3A1)") == true,
                      annotation ?? "none")
        let summary = try String(contentsOf: work.appendingPathComponent("touched/summary.md"), encoding: .utf8)
        XCTAssertTrue(summary.contains("| failed test | outcome | label |"), summary)
    }

    /// Retries need labels: without a labeler, and with a negative count, the request is a usage error (before any build).
    func testRetriesWithoutALabelerAreAUsageError() throws {
        var request = request("usage")
        request.retryUntouched = 1
        XCTAssertThrowsError(try pipeline.run(request)) { XCTAssertTrue($0 is UsageError, "\($0)") }
        request.retryUntouched = -1
        request.failureLabeler = { _, _ in [:] }
        XCTAssertThrowsError(try pipeline.run(request)) { XCTAssertTrue($0 is UsageError, "\($0)") }
    }

    /// junitparser reads the file: its test count, failures, and the testcases with a flakyFailure child.
    func checkJunitparser(_ output: String, expected: String) throws {
        let python = try XCTUnwrap(TestscopeExecution.Toolchain.findInPath("python3", environment: ProcessInfo.processInfo.environment))
        let script = """
        import sys
        from junitparser import JUnitXml, Failure, Error
        xml = JUnitXml.fromfile(sys.argv[1])
        t = f = k = 0
        for suite in xml:
            for case in suite:
                t += 1
                f += sum(1 for r in case.result if isinstance(r, (Failure, Error)))
                k += 1 if case._elem.find('flakyFailure') is not None else 0
        print(f"tests={t} failures={f} flaky={k}")
        """
        let result = try ProcessRunner.run(python, ["-c", script, work.appendingPathComponent("\(output)/junit.xml").path])
        XCTAssertEqual(result.status, 0, "junitparser is required (pip install junitparser): \(result.stderrText)")
        XCTAssertEqual(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), expected)
    }
}

import Foundation
import XCTest
import TestscopeExecution
import TestscopeTestSupport
@testable import TestscopeReports
@testable import TestscopeTestResults

/// The recorded Crashy results as a run with a selection, failure labels and retries would leave them: a
/// test that passed on a retry, one that failed again, a hostile unknown label, a skipped test; every test
/// output renders them (JUnit legal and valid, Surefire's rerun elements; tests.json; the terminal).
final class RetriedResultsTests: XCTestCase {
    static let fails = "CrashyTests.CrashyXCTests/testC_fails"
    static let freeFails = "CrashyTests.freeFunctionFails()"
    static let passes = "CrashyTests.CrashySuite/passes()"
    static let hostileReason = "new test <&\"'>\u{1}]]> " + String(repeating: "x", count: 400)

    /// `fails` passed on its retry, `freeFails` failed again, `passes` was skipped by the selection.
    static func retriedRun() throws -> TestRunResults {
        var run = try JUnitReportTests.crashyResults(crash: false)
        let failed = try XCTUnwrap(run.results.first { $0.id == fails })
        let index = try XCTUnwrap(run.results.firstIndex { $0.id == fails })
        var passedAgain = failed
        (passedAgain.outcome, passedAgain.issues) = (.passed, [])
        run.results[index] = passedAgain
        run.otherAttempts[fails] = [failed]
        run.otherAttempts[freeFails] = [try XCTUnwrap(run.results.first { $0.id == freeFails })]
        run.failureLabels = [fails: .notTouched, freeFails: .unknown(hostileReason)]
        let skipped = try XCTUnwrap(run.results.firstIndex { $0.id == passes })
        (run.results[skipped].outcome, run.results[skipped].skipReason) = (.skipped, "not affected by the change")
        run.notSelected = [(passes, TestSelection.Skip(reason: "not affected by the change", recordedDuration: 1.5))]
        return run
    }

    func testJUnitCarriesTheRerunsAndLabelsAndStaysValid() throws {
        let run = try Self.retriedRun()
        let xmllint = try XCTUnwrap(Toolchain.findInPath("xmllint", environment: ProcessInfo.processInfo.environment))
        let text = try JUnitReport(strict: false, packageRoot: JUnitReportTests.packageRoot, hostname: "host").renderString(run)
        XCTAssertEqual(text.components(separatedBy: "<flakyFailure ").count - 1, 1)
        XCTAssertEqual(text.components(separatedBy: "<rerunFailure ").count - 1, 1)
        XCTAssertNotNil(text.range(of: #"name="testC_fails"[^>]*>\n      <flakyFailure "#, options: .regularExpression), text)
        let message = try XCTUnwrap(text.split(separator: "\n").first { $0.contains("[unknown: new test") })
        XCTAssertFalse(message.contains(String(repeating: "x", count: 200)), "the label is bounded")
        XCTAssertTrue(message.contains("&lt;&amp;&quot;"), String(message))
        // Well-formed as written; without the testcase places (no schema has them), valid where Surefire's elements are known.
        XCTAssertEqual(try ProcessRunner.run(xmllint, ["--noout", try temporaryFile(text).path]).status, 0)
        let withoutPlaces = text.replacingOccurrences(of: #" file="[^"]*" line="[0-9]+""#, with: "", options: .regularExpression)
        for schema in ConsumerSchemas.flakyJUnit {
            let result = try ProcessRunner.run(xmllint, ["--noout", "--schema", schema.path, try temporaryFile(withoutPlaces).path])
            XCTAssertEqual(result.status, 0, "\(schema.lastPathComponent): \(result.stderrText)")
        }
        let strict = try JUnitReport(strict: true, packageRoot: JUnitReportTests.packageRoot, hostname: "host").renderString(run)
        XCTAssertFalse(strict.contains("flakyFailure") || strict.contains("rerunFailure"), "Ant's schema has no rerun elements")
        for schema in ConsumerSchemas.strictJUnit {
            let result = try ProcessRunner.run(xmllint, ["--noout", "--schema", schema.path, try temporaryFile(strict).path])
            XCTAssertEqual(result.status, 0, "\(schema.lastPathComponent): \(result.stderrText)")
        }
    }

    func testTestsJSONAndTheTerminalCarryThemToo() throws {
        let run = try Self.retriedRun()
        XCTAssertTrue(run.summaryLine.hasSuffix(", 1 flaky"), run.summaryLine)
        let json = try TestResultsJSONReport(packageRoot: JUnitReportTests.packageRoot).renderString(run)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual((object["summary"] as? [String: Any])?["flaky"] as? Int, 1)
        XCTAssertEqual((object["selection"] as? [String: Any])?["timeSaved"] as? Double, 1.5)
        let tests = try XCTUnwrap(object["tests"] as? [[String: Any]])
        let fails = try XCTUnwrap(tests.first { $0["id"] as? String == Self.fails })
        XCTAssertEqual(fails["flaky"] as? Bool, true)
        XCTAssertEqual((fails["failureLabel"] as? [String: Any])?["kind"] as? String, "not-touched")
        let free = try XCTUnwrap(tests.first { $0["id"] as? String == Self.freeFails })
        XCTAssertEqual(free["flaky"] as? Bool, false)
        XCTAssertEqual((free["failureLabel"] as? [String: Any])?["reason"] as? String, Self.hostileReason)

        let terminal = Terminal(useColor: false, showProgress: false, quiet: false, console: CapturedConsole())
        let screen = try TestSummaryReport(terminal: terminal, packageRoot: JUnitReportTests.packageRoot).renderString(run)
        XCTAssertTrue(screen.contains("FLAKY \(Self.fails) — not touched by the change (likely flaky)"), screen)
        XCTAssertTrue(screen.contains("failed again in 1 retry"), screen)
        XCTAssertTrue(screen.contains("1 test skipped: not affected by the change (saved about 1.5 s)"), screen)
    }

    func testASelectionSkipsTheTestsItNamesAndRunsEveryOtherTest() {
        let list = TestList(xctest: ["M.A/testOne", "M.A/testTwo", "M.A/testNew"], swiftTesting: ["M.S/three()"])
        let selection = TestSelection(skipped: ["M.A/testOne": .init(reason: "not affected by the change", recordedDuration: 2),
                                                "M.S/three()": .init(reason: "not selected"), "M.Gone/removed()": .init(reason: "gone")])
        let (run, skipped) = selection.split(list)
        XCTAssertEqual(run, TestList(xctest: ["M.A/testTwo", "M.A/testNew"]), "a test the selection does not name runs")
        XCTAssertEqual(skipped.map(\.id), ["M.A/testOne", "M.S/three()"])
        XCTAssertEqual(skipped.map(\.skip.reason), ["not affected by the change", "not selected"])
        let results = TestSelection.skippedResults(skipped, of: list)
        XCTAssertEqual(results.map(\.framework), [.xctest, .swiftTesting])
        XCTAssertEqual(results.map(\.suite), ["A", "S"])
        XCTAssertEqual(SelectionSkips.grouped(skipped).map(\.line),
                       ["1 test skipped: not affected by the change (saved about 2.0 s)", "1 test skipped: not selected (saved about 0.000 s)"])
    }

    func temporaryFile(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("retried-\(UUID().uuidString).xml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}

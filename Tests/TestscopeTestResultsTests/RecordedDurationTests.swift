import Foundation
import XCTest
import TestscopeExecution
@testable import TestscopeReports
@testable import TestscopeTestResults

/// Durations from real parallel Swift Testing runs (sample-profiles/recorded/Durations: tests that
/// sleep known amounts at once): each test's time is its own start to its own end, suites and the
/// run take wall time, in every report (JUnit, tests.json, the terminal, the Tests page).
final class RecordedDurationTests: XCTestCase {
    /// The seconds a test sleeps, from its name (`waits300ms()`, `blocks800ms()`) or its case (`ms → 100`).
    func sleep(_ result: TestCaseResult) -> Double? {
        let source = result.arguments.map { $0.replacingOccurrences(of: "ms → ", with: "") + "ms" } ?? result.name
        guard let range = source.range(of: #"[0-9]+ms"#, options: .regularExpression) else { return nil }
        return Double(source[range].dropLast(2)).map { $0 / 1000 }
    }

    /// The stream's own instants, read independently of the reader: `absolute` of each test's (or
    /// case's) start and end event, and the run's first and last `since1970`.
    func instants(_ name: String) throws -> (spans: [String: Double], wall: Double) {
        var starts: [String: Double] = [:], spans: [String: Double] = [:]
        var first = Double.infinity, last = -Double.infinity
        for line in try RecordedLogs.text("Durations", name).split(separator: "\n") {
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard record["kind"] as? String == "event", let payload = record["payload"] as? [String: Any],
                  let instant = payload["instant"] as? [String: Double], let kind = payload["kind"] as? String else { continue }
            first = min(first, instant["since1970"]!)
            last = max(last, instant["since1970"]!)
            guard let id = payload["testID"] as? String else { continue }
            let key = id + ((payload["_testCase"] as? [String: Any])?["displayName"] as? String ?? "")
            if kind == "testStarted" || kind == "testCaseStarted" { starts[key] = instant["absolute"] }
            if kind == "testEnded" || kind == "testCaseEnded" { spans[key] = instant["absolute"]! - starts[key]! }
        }
        return (spans, last - first)
    }

    func results(_ name: String) throws -> TestRunResults {
        TestRunResults(results: try TestResultImporter.eventStream(RecordedLogs.url("Durations", name)))
    }

    func testParallelTestsThatWaitTakeTheirOwnTimeAndTheRunTakesWallTime() throws {
        let run = try results("swift-testing-events.jsonl")
        let (spans, wall) = try instants("swift-testing-events.jsonl")
        let waiting = run.results.filter { $0.suite == "Waiting" }
        XCTAssertEqual(waiting.count, 5, "4 tests, one with 2 cases")
        for result in waiting {
            let slept = try XCTUnwrap(sleep(result), result.caseName)
            let duration = try XCTUnwrap(result.duration, result.caseName)
            // Each test's own start and end events: at least its sleep, and not the others' time.
            XCTAssertGreaterThanOrEqual(duration, slept, result.caseName)
            XCTAssertLessThan(duration, slept + 0.1, result.caseName)
            let caseName = result.arguments?.replacingOccurrences(of: "ms → ", with: "") ?? ""
            let testID = try XCTUnwrap(spans.keys.filter { $0.hasPrefix(result.id + "/") }.min { $0.count < $1.count }, result.caseName)
            XCTAssertEqual(duration, try XCTUnwrap(spans[testID + caseName], result.caseName), accuracy: 1e-9, result.caseName)
        }
        // Parallel: the durations add up to more than the run took; the run's time is its wall time.
        let sum = waiting.compactMap(\.duration).reduce(0, +)
        let runWall = try XCTUnwrap(run.wallTime)
        XCTAssertGreaterThan(sum, runWall * 1.5)
        XCTAssertEqual(runWall, wall, accuracy: 0.01)
        XCTAssertGreaterThanOrEqual(runWall, waiting.compactMap(\.duration).max()!)
        try assertReportsUseWallTime(run)
        // The durations rank the tests: no note says otherwise.
        XCTAssertFalse(run.durationsMostlyWaiting)
    }

    func testBlockingTestsHoldThePoolAndStillNoTimeExceedsTheWall() throws {
        let run = try results("blocking-swift-testing-events.jsonl")
        let (_, wall) = try instants("blocking-swift-testing-events.jsonl")
        let runWall = try XCTUnwrap(run.wallTime)
        XCTAssertEqual(runWall, wall, accuracy: 0.01)
        XCTAssertEqual(run.results.count, 8)
        for result in run.results {
            // A test's end waits for a thread that blocking tests hold: its time is at least its sleep
            // (Swift Testing prints the same), never more than the run.
            let duration = try XCTUnwrap(result.duration, result.caseName)
            XCTAssertGreaterThanOrEqual(duration, try XCTUnwrap(sleep(result), result.caseName), result.caseName)
            XCTAssertLessThanOrEqual(duration, runWall + 1e-9, result.caseName)
        }
        try assertReportsUseWallTime(run)
        // Most tests lasted about as long as the run: the reports say these times do not rank them.
        XCTAssertTrue(run.durationsMostlyWaiting)
        let text = try TestSummaryReport(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: CapturedConsole()),
                                         packageRoot: "/").renderString(run)
        XCTAssertTrue(text.contains(TestRunResults.waitingNote), text)
        let page = try TestsHTMLPage(templates: try HTMLTemplates.builtIn(), navigation: [.tests], generatorVersion: "test",
                                     packageRoot: "/", createdAt: Date(timeIntervalSince1970: 0)).renderString(run)
        XCTAssertTrue(page.contains("testscope run -- --no-parallel"))
    }

    /// JUnit's run and suite times, tests.json's wallTime and startedAt, the terminal's slowest tests
    /// and the Tests page: wall times, each suite's no more than the run's.
    func assertReportsUseWallTime(_ run: TestRunResults, file: StaticString = #filePath, line: UInt = #line) throws {
        let wall = try XCTUnwrap(run.wallTime)
        let junit = try JUnitReport(strict: false, packageRoot: "/", hostname: "host").renderString(run)
        let root = try XCTUnwrap(junit.range(of: #"<testsuites [^>]*time="([0-9.]+)""#, options: .regularExpression).map { String(junit[$0]) })
        XCTAssertTrue(root.hasSuffix("time=\"\(JUnitReport.time(wall))\""), root, file: file, line: line)
        let suiteTimes = junit.components(separatedBy: "<testsuite ").dropFirst().compactMap { suite -> Double? in
            guard let r = suite.range(of: #"time="[0-9.]+""#, options: .regularExpression) else { return nil }
            return Double(suite[r].dropFirst(6).dropLast())
        }
        XCTAssertEqual(suiteTimes.count, Set(run.results.map(\.className)).count, file: file, line: line)
        for time in suiteTimes { XCTAssertLessThanOrEqual(time, Double(JUnitReport.time(wall))!, file: file, line: line) }
        XCTAssertLessThan(suiteTimes.reduce(0, +), run.results.compactMap(\.duration).reduce(0, +), file: file, line: line)

        let json = try TestResultsJSONReport(packageRoot: "/").renderString(run)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(object["wallTime"] as? Double, Double(JUnitReport.time(wall)), file: file, line: line)
        let tests = try XCTUnwrap(object["tests"] as? [[String: Any]])
        XCTAssertTrue(tests.allSatisfy { ($0["startedAt"] as? String)?.hasSuffix("Z") == true }, file: file, line: line)

        let text = try TestSummaryReport(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: CapturedConsole()), packageRoot: "/", slowest: 3).renderString(run)
        XCTAssertTrue(text.contains("Slowest tests: (the tests took \(TestText.seconds(wall)) of wall time"), text, file: file, line: line)
        let slowest = run.results.max { ($0.duration ?? 0) < ($1.duration ?? 0) }!
        let listed = text.components(separatedBy: "\n").first { $0.hasPrefix("  ") && $0.contains(" s  ") }
        XCTAssertEqual(listed, "  \(TestText.seconds(slowest.duration!))  \(slowest.id)", file: file, line: line)

        let page = try TestsHTMLPage(templates: try HTMLTemplates.builtIn(), navigation: [.tests], generatorVersion: "test",
                                     packageRoot: "/", createdAt: Date(timeIntervalSince1970: 0)).renderString(run)
        XCTAssertTrue(page.contains("Wall time") && page.contains(TestText.seconds(wall)), file: file, line: line)
    }
}

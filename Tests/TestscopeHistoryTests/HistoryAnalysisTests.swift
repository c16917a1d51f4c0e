import Foundation
import XCTest
@testable import TestscopeHistory

/// The scores of ci-formats.md G on small timelines whose expected values follow from the definitions.
final class HistoryAnalysisTests: XCTestCase {
    /// One run per outcome, each on its own commit unless `commits` says otherwise.
    func records(_ outcomes: [String], commits: [String]? = nil, durations: [Double]? = nil) -> [HistoryRecord] {
        outcomes.enumerated().map { i, outcome in
            var run = HistoryRun(command: "run", startedAt: Date(timeIntervalSince1970: Double(i) * 60), finishedAt: Date(timeIntervalSince1970: Double(i) * 60 + 1), exitStatus: 0)
            run.commit = commits?[i] ?? "c\(i)"
            return HistoryRecord(run: run, executions: [HistoryExecution(test: "M.C/t", outcome: outcome, duration: durations?[i])])
        }
    }

    func stats(_ records: [HistoryRecord]) throws -> HistoryAnalysis.TestStats { try XCTUnwrap(HistoryAnalysis(records).tests.first) }

    func testFlipRateIsFlipsOverRunsMinusOne() throws {
        // BuildPulse's example timeline P,F,P,F,P: 4 flips in 5 runs.
        let s = try stats(records(["passed", "failed", "passed", "failed", "passed"]))
        XCTAssertEqual(s.flips, 4)
        XCTAssertEqual(s.flipRate, 1.0)
        XCTAssertEqual(s.state, .flaky)
        XCTAssertEqual(s.sameCodeDisagreements, 0)
    }

    func testBelowTheMinimumSampleNothingIsFlaky() throws {
        let s = try stats(records(["passed", "failed", "passed", "failed"], commits: ["a", "a", "a", "a"]))
        XCTAssertEqual(s.sameCodeDisagreements, 1)
        XCTAssertEqual(s.state, .tooFewRuns)
    }

    func testSameCodeDisagreementMakesFlakyAndSkippedRunsDoNotCount() throws {
        let s = try stats(records(["passed", "skipped", "passed", "passed", "failed", "passed"], commits: ["a", "a", "b", "c", "d", "d"]))
        XCTAssertEqual(s.runs, 5)
        XCTAssertEqual(s.sameCodeDisagreements, 1)
        XCTAssertEqual(s.state, .flaky)
        XCTAssertEqual(HistoryAnalysis(records(["passed", "skipped", "passed", "passed", "failed", "passed"], commits: ["a", "a", "b", "c", "d", "d"])).quarantineLines,
                       ["# passed and failed on the same code 1 time", "M.C/t"])
    }

    func testBrokenWhenTheLastRunsFailAndNothingPointsToFlakiness() throws {
        let s = try stats(records(["passed", "passed", "passed", "passed", "failed", "failed", "failed"]))
        XCTAssertEqual(s.state, .broken)
        XCTAssertTrue(s.becameBroken)
        XCTAssertEqual(HistoryAnalysis(records(["passed", "passed", "passed", "passed", "failed", "failed", "failed"])).quarantineLines, [])
    }

    func testSlowerComparesTheRecentMedianWithTheEarlierOne() throws {
        let durations = [0.1, 0.1, 0.1, 0.1, 0.3, 0.3, 0.3, 0.3, 0.3]
        let s = try stats(records(Array(repeating: "passed", count: 9), durations: durations))
        XCTAssertEqual(s.earlierDuration, 0.1)
        XCTAssertEqual(s.recentDuration, 0.3)
        XCTAssertTrue(s.becameSlower)
        XCTAssertEqual(s.state, .healthy)
    }
}

/// `testscope history`'s text after a few runs: the tests that passed every run are one line, not a row each.
final class HistoryTextTests: XCTestCase {
    func testTestsThatPassedTheirFewRunsAreCountedOnOneLine() {
        let records = (0..<2).map { i -> HistoryRecord in
            let run = HistoryRun(command: "run", startedAt: Date(timeIntervalSince1970: Double(i) * 60), finishedAt: Date(timeIntervalSince1970: Double(i) * 60 + 1), exitStatus: 1)
            return HistoryRecord(run: run, executions: (0..<200).map { HistoryExecution(test: "M.C/test\($0)", outcome: "passed", duration: 0.01) }
                                 + [HistoryExecution(test: "M.C/testFails", outcome: "failed", duration: 0.01, message: "boom")])
        }
        let text = HistoryText(path: "h.sqlite").render(HistoryAnalysis(records))
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.hasPrefix("  too-few-runs ") }.count, 1, "only the failing test keeps its row:\n\(text)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("  too-few-runs ") && $0.hasSuffix(" M.C/testFails") }, text)
        XCTAssertTrue(lines.contains("  too-few-runs: 200 tests passed every run so far (2 of the 5 runs a verdict needs): record 3 more runs with --history"), text)
        XCTAssertLessThan(lines.count, 20, text)
    }
}

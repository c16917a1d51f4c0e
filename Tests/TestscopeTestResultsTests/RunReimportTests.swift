import Foundation
import XCTest
@testable import TestscopeTestResults

/// A real `testscope run` whose Swift Testing process crashed with five tests in flight and was
/// relaunched (sample-profiles/record-runs.sh → recorded/Crashy/run-crash): importing its own
/// artifacts gives the run's tests.json, test by test.
final class RunReimportTests: XCTestCase {
    func url(_ name: String) -> URL { RecordedLogs.url("Crashy", "run-crash/\(name)") }

    /// `id [arguments]` → outcome, from the run's tests.json.
    func runOutcomes() throws -> [String: String] {
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: url("tests.json"))) as? [String: Any])
        var map: [String: String] = [:]
        for test in try XCTUnwrap(json["tests"] as? [[String: Any]]) {
            map["\(test["id"] as? String ?? "?") [\(test["arguments"] as? String ?? "")]"] = test["outcome"] as? String
        }
        return map
    }

    func outcomes(_ run: TestRunResults) -> [String: String] {
        var map: [String: String] = [:]
        for result in run.results {
            let key = "\(result.id) [\(result.arguments ?? "")]"
            XCTAssertNil(map[key], "one result per test and case: \(key)")
            map[key] = result.outcome.rawValue
        }
        return map
    }

    func testTheRunsStreamsLogAndListGiveTheRunsResultsInEitherOrder() throws {
        let expected = try runOutcomes()
        XCTAssertEqual(expected.values.filter { $0 == "crashed" }.count, 2)
        let list = TestList.parse(try String(contentsOf: url("test-list.txt"), encoding: .utf8))
        let streams = [url("swift-testing-events.jsonl"), url("swift-testing-events-2.jsonl")]
        for order in [streams, streams.reversed()] {
            let run = try TestResultImporter.combined(logs: [url("swift-test.log")], streams: order, junit: [], testList: list)
            XCTAssertEqual(outcomes(run), expected, "\(order.map(\.lastPathComponent))")
            XCTAssertEqual(run.warnings, [])
            // The crash is the one the log's backtrace names, with its evidence.
            let crashed = try XCTUnwrap(run.results.first { $0.framework == .swiftTesting && $0.outcome == .crashed })
            XCTAssertEqual(crashed.name, "unwrapsNil()")
            XCTAssertNotNil(crashed.crash?.fatalError)
        }
    }

    func testTheStreamsAloneGiveTheRunsSwiftTestingResults() throws {
        let expected = try runOutcomes().filter { $0.key.contains("(") }
        let run = try TestResultImporter.combined(logs: [], streams: [url("swift-testing-events.jsonl"), url("swift-testing-events-2.jsonl")],
                                                  junit: [], testList: nil)
        // The only test that no later stream reports is the one that crashed.
        XCTAssertEqual(outcomes(run), expected)
    }

    func testTheFirstStreamAloneSaysItCannotTellWhichTestCrashed() throws {
        let first = url("swift-testing-events.jsonl")
        let stream = SwiftTestingEventStream.parse(try String(contentsOf: first, encoding: .utf8))
        XCTAssertEqual(stream.inFlight.count, 5)
        let run = try TestResultImporter.combined(logs: [], streams: [first], junit: [], testList: nil)
        XCTAssertEqual(run.count(.crashed), 5)
        XCTAssertEqual(run.warnings.count, 1)
        XCTAssertEqual(run.warnings.first?.file, first.path)
        XCTAssertTrue(run.warnings.first?.message.contains("later event streams") ?? false)
        // With the log, the backtrace names the culprit; the others were not finished, and are said so.
        let withLog = try TestResultImporter.combined(logs: [url("swift-test.log")], streams: [first], junit: [], testList: nil)
        XCTAssertEqual(withLog.results.filter { $0.framework == .swiftTesting && $0.outcome == .crashed }.map(\.name), ["unwrapsNil()"])
        let unfinished = withLog.results.filter { $0.skipReason?.hasPrefix("not finished") == true }
        XCTAssertEqual(unfinished.count, 4)
        XCTAssertEqual(withLog.warnings, [])
    }
}

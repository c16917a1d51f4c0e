import Foundation
import XCTest

/// `testscope run` on the Crashy fixture with a crashing test in the middle and a hanging test:
/// the tests after them still run and are reported; JUnit and tests.json say what happened.
final class CrashAndTimeoutTests: XCTestCase {
    func testCrashAndHangDoNotHideTheOtherTests() throws {
        let output = try TestscopeProcess.temporaryDirectory("crash")
        defer { try? FileManager.default.removeItem(at: output) }
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Crashy")
        let result = try TestscopeProcess.run(
            ["run", "--package-path", package.path, "--output", output.path, "--format", "text,json,junit", "--test-timeout", "3"],
            environment: ["CRASHY_CRASH": "1", "CRASHY_HANG": "1"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertFalse(result.stderr.contains("Fatal error: testscope"), "testscope itself must not crash")

        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("tests.json"))) as? [String: Any])
        let tests = try XCTUnwrap(json["tests"] as? [[String: Any]])
        func outcome(_ id: String, _ arguments: String? = nil) -> String? {
            tests.first { $0["id"] as? String == id && ($0["arguments"] as? String) == arguments }?["outcome"] as? String
        }
        // The crashed and the hung tests are attributed…
        XCTAssertEqual(outcome("CrashyTests.CrashyXCTests/testB_crashes"), "crashed")
        XCTAssertEqual(outcome("CrashyTests.CrashyXCTests/testD_hangsWhenAsked"), "timed-out")
        XCTAssertEqual(outcome("CrashyTests.CrashySuite/unwrapsNil()"), "crashed")
        // …and the tests after them ran, in relaunched processes.
        XCTAssertEqual(outcome("CrashyTests.CrashyXCTests/testC_fails"), "failed")
        XCTAssertEqual(outcome("CrashyTests.CrashyXCTests/testE_skips"), "skipped")
        XCTAssertEqual(outcome("CrashyTests.CrashyXCTests/testF_measures"), "passed")
        XCTAssertEqual(outcome("CrashyTests.LaterXCTests/testRunsAfterTheCrash"), "passed")
        XCTAssertEqual(outcome("CrashyTests.CrashySuite/doubles(value:)", "value → 2"), "failed")
        XCTAssertEqual(outcome("CrashyTests.CrashySuite/doubles(value:)", "value → 1"), "passed")
        XCTAssertEqual(outcome("CrashyTests.CrashySuite/knownIssue()"), "expected-failure")
        XCTAssertEqual(outcome("CrashyTests.CrashySuite/disabled()"), "skipped")
        let listed = try TestscopeProcess.listedTests(package)
        XCTAssertFalse(listed.isEmpty, "swift test list found no tests in the build run made")
        let reported = Set(tests.compactMap { $0["id"] as? String })
        XCTAssertEqual(reported, listed, "every listed test is reported")
        let summary = try XCTUnwrap(json["summary"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(summary["relaunches"] as? Int ?? 0, 2)
        XCTAssertTrue(result.stdout.contains("Relaunched the test binary"))
        XCTAssertTrue(result.stdout.contains("2 crashed, 1 timed out"), result.stdout)

        let crash = try XCTUnwrap(tests.first { $0["id"] as? String == "CrashyTests.CrashyXCTests/testB_crashes" }?["crash"] as? [String: Any])
        XCTAssertEqual(crash["signal"] as? Int, 4)
        XCTAssertEqual(crash["fatalError"] as? String, "Swift/ContiguousArrayBuffer.swift:692: Fatal error: Index out of range")

        let junit = try String(contentsOf: output.appendingPathComponent("junit.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains("type=\"crash\""))
        XCTAssertTrue(junit.contains("type=\"timeout\""))
        // Coverage from every process that exited normally is kept.
        let coverage = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("coverage.json"))) as? [String: Any])
        let lines = try XCTUnwrap((coverage["totals"] as? [String: [String: Any]])?["lines"])
        XCTAssertGreaterThan(lines["covered"] as? Int ?? 0, 0)

        // `report` re-rendering the run gives the run's results: the timeout and the relaunches, which only the
        // supervisor knew (the log shows a test that started and never ended), come from the run's record.
        let again = output.appendingPathComponent("again")
        let rendered = try TestscopeProcess.run(["report", "--from", output.path, "--output", again.path, "--format", "json"])
        XCTAssertEqual(rendered.status, 1, rendered.stderr)
        let reread = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: again.appendingPathComponent("tests.json"))) as? [String: Any])
        XCTAssertEqual(reread["summary"] as? NSDictionary, json["summary"] as? NSDictionary)
        func essentials(_ tests: [[String: Any]]) -> [String] {
            tests.map { "\($0["id"] ?? "") \($0["arguments"] ?? "") \($0["outcome"] ?? "") \(($0["crash"] as? [String: Any])?["reason"] ?? "")" }.sorted()
        }
        XCTAssertEqual(essentials(try XCTUnwrap(reread["tests"] as? [[String: Any]])), essentials(tests))
    }
}

import Foundation
import XCTest
@testable import TestscopeTestResults

/// The recorded hang (sample-profiles/recorded/Crashy/hang-*: `testscope run --test-timeout 2` with
/// CRASHY_HANG=1): the hung test is cut by the timeout and the tests after it still ran.
final class RecordedHangTests: XCTestCase {
    func testHangCutByTheTimeoutAndTheRestReported() throws {
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: RecordedLogs.url("Crashy", "hang-tests.json"))) as? [String: Any])
        let tests = try XCTUnwrap(json["tests"] as? [[String: Any]])
        let summary = try XCTUnwrap(json["summary"] as? [String: Any])
        let hung = try XCTUnwrap(tests.first { $0["id"] as? String == "CrashyTests.CrashyXCTests/testD_hangsWhenAsked" })
        XCTAssertEqual(hung["outcome"] as? String, "timed-out")
        XCTAssertEqual((hung["crash"] as? [String: Any])?["signal"] as? Int, 9)
        XCTAssertEqual(summary["timed-out"] as? Int, 1)
        XCTAssertGreaterThanOrEqual(summary["relaunches"] as? Int ?? 0, 1)
        let listed = TestList.parse(try RecordedLogs.text("Crashy", "test-list.txt"))
        XCTAssertEqual(Set(tests.compactMap { $0["id"] as? String }), Set(listed.xctest + listed.swiftTesting), "every listed test is reported")

        // The log shows the hung test starting and never ending, then the relaunch running the rest.
        let log = try RecordedLogs.text("Crashy", "hang-testscope-run.log")
        XCTAssertTrue(log.contains("Test Case 'CrashyXCTests.testD_hangsWhenAsked' started"))
        XCTAssertFalse(log.contains("Test Case 'CrashyXCTests.testD_hangsWhenAsked' passed"))
        XCTAssertFalse(log.contains("Test Case 'CrashyXCTests.testD_hangsWhenAsked' failed"))
        // Read back from the log alone, every XCTest test but the hung one has the outcome tests.json gives it.
        let parsed = XCTestConsoleParser.parse(log: log, moduleForClass: listed.moduleForClass)
        // (Parameterized Swift Testing cases share an id; only XCTest ids are looked up here.)
        let recorded = Dictionary(tests.compactMap { t in (t["id"] as? String).map { ($0, t["outcome"] as? String) } },
                                  uniquingKeysWith: { first, _ in first })
        let others = parsed.filter { $0.name != "testD_hangsWhenAsked" }
        XCTAssertEqual(others.count, listed.xctest.count - 1)
        for result in others { XCTAssertEqual(result.outcome.rawValue, recorded[result.id] ?? nil, result.id) }
    }
}

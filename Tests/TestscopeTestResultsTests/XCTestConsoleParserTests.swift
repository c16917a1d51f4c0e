import XCTest
@testable import TestscopeTestResults

/// The XCTest console parser on real logs recorded with this toolchain.
final class XCTestConsoleParserTests: XCTestCase {
    func parse(_ sample: String, _ log: String = "swift-test.log") throws -> [TestCaseResult] {
        XCTestConsoleParser.parse(log: try RecordedLogs.text(sample, log), moduleForClass: try RecordedLogs.modules(sample))
    }

    /// The counts must agree with XCTest's own `Executed N tests, with K skipped and F failures` line.
    func testCountsAgreeWithXCTestSummary() throws {
        for sample in ["Shapes", "Inventory", "Crashy", "Lookalikes"] {
            let log = try RecordedLogs.text(sample, "swift-test.log")
            let results = try parse(sample)
            let summary = try XCTUnwrap(log.split(separator: "\n").compactMap { XCTestLine.parse($0) }.last {
                if case .executed = $0 { return true } else { return false }
            })
            guard case let .executed(tests, skipped, _, _, _) = summary else { return XCTFail() }
            XCTAssertEqual(results.count, tests, sample)
            XCTAssertEqual(results.filter { $0.outcome == .skipped }.count, skipped, sample)
            // Every listed XCTest test of the package appears once, with its module.
            let listed = TestList.parse(try RecordedLogs.text(sample, "test-list.txt")).xctest
            XCTAssertEqual(Set(results.map(\.id)), Set(listed), sample)
        }
    }

    func testFailureSkipAndMeasure() throws {
        let results = try parse("Crashy")
        let failed = try XCTUnwrap(results.first { $0.name == "testC_fails" })
        XCTAssertEqual(failed.outcome, .failed)
        XCTAssertEqual(failed.module, "CrashyTests")
        XCTAssertEqual(failed.id, "CrashyTests.CrashyXCTests/testC_fails")
        let issue = try XCTUnwrap(failed.issues.first)
        XCTAssertTrue(issue.message.contains("double is wrong"))
        XCTAssertTrue(issue.location?.file.hasSuffix("Tests/CrashyTests/CrashyXCTests.swift") ?? false)
        let log = try RecordedLogs.text("Crashy", "swift-test.log")
        XCTAssertTrue(log.contains("CrashyXCTests.swift:\(issue.location!.line): error: CrashyXCTests.testC_fails"))

        let skipped = try XCTUnwrap(results.first { $0.name == "testE_skips" })
        XCTAssertEqual(skipped.outcome, .skipped)
        XCTAssertEqual(skipped.skipReason, "not on this platform")

        let measured = try XCTUnwrap(results.first { $0.name == "testF_measures" })
        let metric = try XCTUnwrap(measured.metrics.first)
        XCTAssertEqual(metric.name, "Time")
        XCTAssertEqual(metric.unit, "seconds")
        XCTAssertEqual(metric.values.count, 10)
        XCTAssertEqual(measured.outcome, .passed)
    }

    func testCrashMarksTheRunningTestAndKeepsEarlierResults() throws {
        let log = try RecordedLogs.text("Crashy", "crash-swift-test.log")
        var parser = XCTestConsoleParser(moduleForClass: try RecordedLogs.modules("Crashy"))
        var sawXCTestEnd = false
        for line in log.split(separator: "\n", omittingEmptySubsequences: false) {
            // The XCTest process's output ends where SwiftPM reports its signal.
            parser.consume(String(line))
            if line.contains("exited with unexpected signal code") { sawXCTestEnd = true; break }
        }
        XCTAssertTrue(sawXCTestEnd)
        parser.finish(signal: nil, timedOut: false)
        let results = parser.results
        XCTAssertEqual(results.first?.name, "testA_passes")
        XCTAssertEqual(results.first?.outcome, .passed)
        let crashed = try XCTUnwrap(results.first { $0.name == "testB_crashes" })
        XCTAssertEqual(crashed.outcome, .crashed)
        let crash = try XCTUnwrap(crashed.crash)
        XCTAssertEqual(crash.signal, 4)
        XCTAssertEqual(crash.fatalError, "Swift/ContiguousArrayBuffer.swift:692: Fatal error: Index out of range")
        XCTAssertEqual(crash.reason, "Illegal instruction at 0x" + (log.components(separatedBy: "Illegal instruction at 0x")[1].prefix(16)))
        XCTAssertTrue(crash.frames.contains { $0.contains("Crashy.element(_:at:)") }, "\(crash.frames)")
        XCTAssertTrue(crash.location?.file.hasSuffix("Sources/Crashy/Crashy.swift") ?? false)
        XCTAssertFalse(results.contains { $0.name == "testC_fails" }, "tests after the crash did not run in this process")
    }

    func testMacOSLinesAreUnderstood() throws {
        // Labeled sample of the documented Darwin format (see shared reference: test-output.md §1.1).
        let darwin = """
        Test Suite 'All tests' started at 2026-11-21 07:38:34.214.
        Test Case '-[DemoTests.XCDemoTests testEqualFail]' started.
        /Users/dev/Demo/Tests/DemoTests/XCDemoTests.swift:9: error: -[DemoTests.XCDemoTests testEqualFail] : XCTAssertEqual failed: ("2") is not equal to ("3") - math is broken
        Test Case '-[DemoTests.XCDemoTests testEqualFail]' failed (0.001 seconds).
        Test Case '-[DemoTests.XCDemoTests testPass]' started.
        Test Case '-[DemoTests.XCDemoTests testPass]' passed (0.000 seconds).
        Test Case '-[DemoTests.XCDemoTests testSkip]' started.
        /Users/dev/Demo/Tests/DemoTests/XCDemoTests.swift:13: -[DemoTests.XCDemoTests testSkip] : Test skipped - not supported here
        Test Case '-[DemoTests.XCDemoTests testSkip]' skipped (0.000 seconds).
        """
        let results = XCTestConsoleParser.parse(log: darwin)
        XCTAssertEqual(results.map(\.outcome), [.failed, .passed, .skipped])
        XCTAssertEqual(results.map(\.id), ["DemoTests.XCDemoTests/testEqualFail", "DemoTests.XCDemoTests/testPass", "DemoTests.XCDemoTests/testSkip"])
        XCTAssertEqual(results[0].issues.first?.location?.line, 9)
        XCTAssertEqual(results[2].skipReason, "not supported here")
    }

    func testLinesWithoutFixedDecimalsAndThrownErrors() {
        let log = """
        Test Case 'C.testThrows' started at 2026-11-21 07:38:34.223
        <EXPR>:0: error: C.testThrows : threw error "DemoError(boom)"
        Test Case 'C.testThrows' failed (0.05 seconds)
        Test Case 'C.testSlow' started at 2026-11-21 07:38:34.223
        some output the test printed
        Test Case 'C.testSlow' passed (12.5 seconds)
        """
        let results = XCTestConsoleParser.parse(log: log, moduleForClass: ["C": "M"])
        XCTAssertEqual(results[0].outcome, .failed)
        XCTAssertEqual(results[0].issues.first?.kind, .error)
        XCTAssertNil(results[0].issues.first?.location)
        XCTAssertEqual(results[0].duration, 0.05)
        XCTAssertEqual(results[1].duration, 12.5)
        XCTAssertEqual(results[1].output, ["some output the test printed"])
    }
}

import Foundation
import XCTest
@testable import TestscopeReports
@testable import TestscopeTestResults

/// XCTest console logs in Darwin's format (DarwinXCTestLogs/, written from the documented line shapes:
/// `-[Module.Class test]` names, `started.` without a time, suite lines ending in a dot, thrown errors
/// as `failed: caught error: "…"`), read as `report --test-log` reads them.
final class DarwinXCTestLogTests: XCTestCase {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("DarwinXCTestLogs")

    func text(_ name: String) throws -> String { try String(contentsOf: Self.corpus.appendingPathComponent(name), encoding: .utf8) }

    func results(_ name: String, testList: TestList? = nil) throws -> [TestCaseResult] {
        try TestResultImporter.combined(logs: [Self.corpus.appendingPathComponent(name)], streams: [], junit: [], testList: testList).results
    }

    /// XCTest's own last `Executed N tests, with K tests skipped and F failures (U unexpected)` line.
    func summary(_ name: String) throws -> (tests: Int, skipped: Int, failures: Int, unexpected: Int) {
        let last = try XCTUnwrap(try text(name).split(separator: "\n").compactMap { XCTestLine.parse($0) }.last {
            if case .executed = $0 { return true } else { return false }
        })
        guard case let .executed(tests, skipped, failures, unexpected, _) = last else { throw CocoaError(.fileReadCorruptFile) }
        return (tests, skipped, failures, unexpected)
    }

    /// Every log's results agree with its summary: tests, skips, failures, and the unexpected ones
    /// (thrown errors) as errors — Darwin's `failed: caught error:` as Linux's `threw error`.
    func testCountsAgreeWithXCTestsSummary() throws {
        for name in ["swift-test-macos.log", "no-module.log", "shared-selectors.log"] {
            let results = try results(name)
            let expected = try summary(name)
            XCTAssertEqual(results.count, expected.tests, name)
            XCTAssertEqual(Set(results.map(\.id)).count, results.count, "\(name): one result per test")
            XCTAssertEqual(results.filter { $0.outcome == .skipped }.count, expected.skipped, name)
            let issues = results.flatMap(\.issues)
            XCTAssertEqual(issues.filter(\.isFailure).count, expected.failures, name)
            XCTAssertEqual(issues.filter { $0.kind == .error }.count, expected.unexpected, "\(name): \(issues.map(\.message))")
        }
    }

    func testIdsCarryTheModuleTheLineNames() throws {
        let results = try results("swift-test-macos.log")
        XCTAssertEqual(results.map(\.id), ["DemoTests.XCDemoTests/testEqualFail", "DemoTests.XCDemoTests/testPass",
                                           "DemoTests.XCDemoTests/testParsesAndReturnError:", "DemoTests.XCDemoTests/testPerf",
                                           "DemoTests.XCDemoTests/testSkip", "DemoTests.XCDemoTests/testSkipIf",
                                           "DemoTests.XCDemoTests/testThrows", "DemoTests.XCDemoTests/testThrowsAtItsLine"])
        XCTAssertEqual(Set(results.map(\.module)), ["DemoTests"])
        XCTAssertEqual(Set(results.map(\.suite)), ["XCDemoTests"])
        let pass = try XCTUnwrap(results.first { $0.name == "testPass" })
        XCTAssertEqual(pass.outcome, .passed)
        XCTAssertEqual(pass.output, ["printed by testPass"])
        XCTAssertEqual(results.first { $0.name == "testParsesAndReturnError:" }?.outcome, .passed, "a selector with a colon")
        let failed = try XCTUnwrap(results.first { $0.name == "testEqualFail" })
        XCTAssertEqual(failed.outcome, .failed)
        XCTAssertEqual(failed.issues.map(\.kind), [.failure])
        XCTAssertEqual(failed.issues.first?.message, #"XCTAssertEqual failed: ("2") is not equal to ("3") - math is broken"#)
        XCTAssertEqual(failed.location, SourceLocation(file: "/Users/dev/Demo/Tests/DemoTests/XCDemoTests.swift", line: 9))
        XCTAssertEqual(failed.duration, 0.001)
    }

    /// `started.` carries no time: a recorded log's tests have no start (not the time it was imported).
    func testAStartWithoutATimeIsUnknown() throws {
        XCTAssertEqual(try results("swift-test-macos.log").compactMap(\.startedAt), [])
        var live = XCTestConsoleParser(live: true)
        live.consume("Test Case '-[DemoTests.XCDemoTests testPass]' started.")
        XCTAssertNotNil(live.runningSince, "a running process's test started now")
    }

    func testIdsWithoutAModuleTakeTheTestListsModule() throws {
        XCTAssertEqual(try results("no-module.log").map(\.id), ["LegacyTests/testAddition", "LegacyTests/testDivision"])
        let list = TestList.parse("LegacyTests.LegacyTests/testAddition\nLegacyTests.LegacyTests/testDivision\n")
        let results = try results("no-module.log", testList: list)
        XCTAssertEqual(results.map(\.id), ["LegacyTests.LegacyTests/testAddition", "LegacyTests.LegacyTests/testDivision"])
        XCTAssertEqual(results.map(\.outcome), [.passed, .failed])
        XCTAssertEqual(results[1].issues.first?.location?.line, 22)
    }

    func testSkipsAndTheirReasons() throws {
        let skipped = try results("swift-test-macos.log").filter { $0.outcome == .skipped }
        XCTAssertEqual(skipped.map(\.name), ["testSkip", "testSkipIf"])
        XCTAssertEqual(skipped.map(\.skipReason), ["not supported here", "flag set"])
        XCTAssertEqual(skipped.flatMap(\.issues).count, 0, "a skip is no issue")
    }

    func testMetricsWithDarwinsExtraFields() throws {
        let perf = try XCTUnwrap(try results("swift-test-macos.log").first { $0.name == "testPerf" })
        let metric = try XCTUnwrap(perf.metrics.first)
        XCTAssertEqual(perf.metrics.count, 1)
        XCTAssertEqual(metric.name, "Time")
        XCTAssertEqual(metric.unit, "seconds")
        XCTAssertEqual(metric.values, [0.012662, 0.011810, 0.011960, 0.012201, 0.011748, 0.012917, 0.011852, 0.011799, 0.012303, 0.011854])
        XCTAssertEqual(metric.average, 0.012)
        XCTAssertEqual(metric.relativeStandardDeviation, 4.130)
        XCTAssertEqual(perf.outcome, .passed)
    }

    /// Darwin's thrown error (`failed: caught error: "…"`) is an error, in JUnit too, as Linux's `threw error`.
    func testThrownErrorsAreErrors() throws {
        let results = try results("swift-test-macos.log")
        let thrown = results.filter { $0.name.hasPrefix("testThrows") }
        XCTAssertEqual(thrown.count, 2)
        for result in thrown {
            XCTAssertEqual(result.outcome, .failed)
            XCTAssertEqual(result.issues.map(\.kind), [.error], result.name)
            XCTAssertEqual(JUnitReport.element(result), .error, result.name)
        }
        XCTAssertNil(thrown[0].issues[0].location, "<unknown>:0 is no place")
        XCTAssertEqual(thrown[0].issues[0].message, #"failed: caught error: "DemoError(boom)""#)
        XCTAssertEqual(thrown[1].issues[0].location?.line, 30)
        XCTAssertEqual(JUnitReport.element(try XCTUnwrap(results.first { $0.name == "testEqualFail" })), .failure)
    }

    /// One selector in several classes (an inherited test, and a class of the same name in two test
    /// modules: one bundle on Darwin): each is a result of its own, its failure its own.
    func testASharedSelectorIsOneResultPerClass() throws {
        let results = try results("shared-selectors.log")
        XCTAssertEqual(results.map(\.id), ["StoreTests.BaseStoreTests/testSaves", "StoreTests.DiskStoreTests/testSaves",
                                           "StoreTests.StoreTests/testSaves", "StoreIntegrationTests.StoreTests/testSaves"])
        XCTAssertEqual(results.map(\.outcome), [.passed, .failed, .passed, .failed])
        XCTAssertEqual(results[1].issues.map(\.message), ["XCTAssertTrue failed - disk full"])
        XCTAssertEqual(results[3].issues.first?.location?.file, "/Users/dev/Store/Tests/StoreIntegrationTests/StoreTests.swift")
        XCTAssertEqual(results[3].module, "StoreIntegrationTests")
    }

    /// Suite lines end in a dot on Darwin; the name is what is between the quotes.
    func testSuiteLinesEndingInADot() throws {
        let suites = try text("swift-test-macos.log").split(separator: "\n").compactMap { line -> String? in
            switch XCTestLine.parse(line) {
            case let .suiteStarted(name): return "started \(name)"
            case let .suiteFinished(name, passed): return "\(passed ? "passed" : "failed") \(name)"
            default: return nil
            }
        }
        XCTAssertEqual(suites, ["started All tests", "started DemoPackageTests.xctest", "started XCDemoTests",
                                "failed XCDemoTests", "failed DemoPackageTests.xctest", "failed All tests"])
    }
}

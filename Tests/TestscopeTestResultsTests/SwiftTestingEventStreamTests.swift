import XCTest
@testable import TestscopeTestResults

/// The Swift Testing event stream on real streams recorded with this toolchain.
final class SwiftTestingEventStreamTests: XCTestCase {
    func stream(_ sample: String, _ name: String = "swift-testing-events.jsonl") throws -> SwiftTestingEventStream {
        SwiftTestingEventStream.parse(try RecordedLogs.text(sample, name))
    }

    func testOutcomesAndCases() throws {
        let s = try stream("Crashy")
        XCTAssertTrue(s.runEnded)
        XCTAssertTrue(s.inFlight.isEmpty)
        let results = s.results()
        let byName = Dictionary(grouping: results, by: \.name)
        XCTAssertEqual(byName["passes()"]?.first?.outcome, .passed)
        XCTAssertEqual(byName["passes()"]?.first?.id, "CrashyTests.CrashySuite/passes()")
        XCTAssertEqual(byName["passes()"]?.first?.suite, "CrashySuite")
        XCTAssertEqual(byName["disabled()"]?.first?.outcome, .skipped)
        XCTAssertEqual(byName["disabled()"]?.first?.skipReason, "not ready yet")
        XCTAssertEqual(byName["knownIssue()"]?.first?.outcome, .expectedFailure)
        let free = try XCTUnwrap(byName["freeFunctionFails()"]?.first)
        XCTAssertEqual(free.outcome, .failed)
        XCTAssertNil(free.suite)
        XCTAssertEqual(free.module, "CrashyTests")
        XCTAssertTrue(free.issues.first?.location?.file.hasSuffix("CrashySwiftTests.swift") ?? false)

        // Each parameterized case is its own result, with its arguments; only the case with 2 failed.
        let cases = try XCTUnwrap(byName["doubles(value:)"])
        XCTAssertEqual(cases.count, 3)
        XCTAssertEqual(Set(cases.compactMap(\.arguments)), ["value → 1", "value → 2", "value → 3"])
        XCTAssertEqual(cases.first { $0.arguments == "value → 2" }?.outcome, .failed)
        XCTAssertEqual(cases.filter { $0.outcome == .passed }.count, 2)
        XCTAssertEqual(cases.first?.displayName, "Doubles every value")
        XCTAssertEqual(cases.first { $0.arguments == "value → 2" }?.issues.first?.details, ["two is special"])

        // The ids are the specifiers `swift test list` prints.
        let listed = Set(TestList.parse(try RecordedLogs.text("Crashy", "test-list.txt")).swiftTesting)
        XCTAssertEqual(Set(results.map(\.id)), listed)
    }

    func testCrashedStreamLeavesTestsInFlight() throws {
        let s = try stream("Crashy", "crash-swift-testing-events.jsonl")
        XCTAssertFalse(s.runEnded)
        XCTAssertFalse(s.inFlight.isEmpty)
        XCTAssertTrue(s.inFlight.contains { $0.hasPrefix("CrashyTests.CrashySuite/unwrapsNil()") })
    }

    func testIDSplitting() {
        XCTAssertEqual(SwiftTestingEventStream.split("M.Outer/Inner/f(x:)/File.swift:3:4").suite, "Outer.Inner")
        XCTAssertEqual(SwiftTestingEventStream.split("M.Outer/Inner/f(x:)/File.swift:3:4").specifier, "M.Outer/Inner/f(x:)")
        XCTAssertEqual(SwiftTestingEventStream.split("M.free()").name, "free()")
        XCTAssertNil(SwiftTestingEventStream.split("M.free()/F.swift:1:2").suite)
    }

    func testOutOfOrderEventsAreAttributedById() throws {
        // The recorded stream's lines, reversed (except test records), must give the same results.
        let lines = try RecordedLogs.text("Crashy", "swift-testing-events.jsonl").split(separator: "\n").map(String.init)
        let tests = lines.filter { $0.contains("\"kind\":\"test\"") }
        let events = lines.filter { !$0.contains("\"kind\":\"test\"") }
        var shuffled = SwiftTestingEventStream()
        for line in tests + events.reversed() { shuffled.consume(line) }
        let a = try stream("Crashy").results().map { "\($0.id) \($0.arguments ?? "") \($0.outcome)" }.sorted()
        let b = shuffled.results().map { "\($0.id) \($0.arguments ?? "") \($0.outcome)" }.sorted()
        XCTAssertEqual(a, b)
    }
}

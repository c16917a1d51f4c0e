import Foundation
import XCTest
@testable import TestscopeReports
@testable import TestscopeTestResults

/// Tests that look alike (sample-profiles/packages/Lookalikes, recorded with `swift test`): parameterized
/// cases whose arguments print the same text, and an XCTest class of the same name in two test modules.
/// Every case the event stream reports and every module's test is one result of its own (issue 41).
final class LookalikeResultsTests: XCTestCase {
    static func url(_ name: String) -> URL { RecordedLogs.url("Lookalikes", name) }

    /// The recorded stream's records as JSON objects.
    func records() throws -> [[String: Any]] {
        try RecordedLogs.text("Lookalikes", "swift-testing-events.jsonl").split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    func testEveryCaseIsOneResultEvenWhenItsArgumentsPrintAlike() throws {
        let stream = SwiftTestingEventStream.parse(try RecordedLogs.text("Lookalikes", "swift-testing-events.jsonl"))
        let records = try records()
        let payloads = records.compactMap { $0["payload"] as? [String: Any] }
        for test in payloads where test["isParameterized"] as? Bool == true {
            let id = try XCTUnwrap(test["id"] as? String)
            let caseIDs = try XCTUnwrap(test["_testCases"] as? [[String: Any]]).compactMap { $0["id"] as? String }
            let events = payloads.filter { $0["testID"] as? String == id }
            let started = events.filter { $0["kind"] as? String == "testCaseStarted" }
            let texts = started.compactMap { SwiftTestingEventStream.arguments(in: ($0["messages"] as? [[String: Any]])?.first?["text"] as? String) }
            XCTAssertLessThan(Set(texts).count, texts.count, "\(id): the fixture's cases print alike")
            // The cases with an issue, by their place in the test's list of cases (1-based).
            let failing = Set(events.filter { $0["kind"] as? String == "issueRecorded" }
                .compactMap { (($0["_testCase"] as? [String: Any])?["id"] as? String).flatMap(caseIDs.firstIndex(of:)).map { $0 + 1 } })

            let results = stream.results(ofTest: id)
            XCTAssertEqual(results.count, started.count, "\(id): one result per case")
            XCTAssertEqual(Set(results.compactMap(\.arguments)).count, results.count, "\(id): \(results.compactMap(\.arguments))")
            for result in results {
                let arguments = try XCTUnwrap(result.arguments)
                // A repeated text carries its case's number; a text of one case is left as it is.
                if texts.filter({ arguments.hasPrefix($0) }).count > 1 {
                    let number = try XCTUnwrap(arguments.split(separator: " ").last.flatMap { Int($0.dropLast()) })
                    XCTAssertTrue(arguments.hasSuffix(" (case \(number))"), arguments)
                    XCTAssertEqual(result.outcome, failing.contains(number) ? .failed : .passed, "\(id) \(arguments)")
                } else {
                    XCTAssertTrue(texts.contains(arguments), arguments)
                    XCTAssertEqual(result.outcome, .passed, "\(id) \(arguments)")
                }
            }
        }
        // Merged into a run (what `run` does with each process's results), no case replaces another.
        var run = TestRunResults()
        run.merge(stream.results())
        XCTAssertEqual(run.results.count, payloads.filter { $0["kind"] as? String == "testCaseStarted" }.count)
        XCTAssertEqual(run.count(.failed), Set(payloads.filter { $0["kind"] as? String == "issueRecorded" }
            .compactMap { ($0["_testCase"] as? [String: Any])?["id"] as? String }).count)
    }

    func testSameNamedClassesOfTwoModulesKeepTheirModules() throws {
        let list = TestList.parse(try RecordedLogs.text("Lookalikes", "test-list.txt"))
        let results = XCTestConsoleParser.parse(log: try RecordedLogs.text("Lookalikes", "swift-test.log"), moduleForClass: list.moduleForClass)
        XCTAssertEqual(results.map(\.id).sorted(), list.xctest.sorted())
        // SwiftPM's own xunit.xml names each test's module (it asks XCTest in process): the same outcomes.
        let xunit = try TestResultImporter.junit(Self.url("xunit.xml"))
        XCTAssertEqual(results.map { "\($0.id) \($0.outcome)" }.sorted(), xunit.map { "\($0.id) \($0.outcome)" }.sorted())
        XCTAssertEqual(results.first { $0.outcome == .failed }?.module, xunit.first { $0.outcome == .failed }?.module)
    }

    /// A relaunch runs some of a class's modules: the module is the launched one, whichever the list names first.
    func testARelaunchOfOneModulesClassNamesThatModule() throws {
        let list = TestList.parse(try RecordedLogs.text("Lookalikes", "test-list.txt"))
        let name = try XCTUnwrap(XCTestName("FileHandleTests.testInfo"))
        let both = list.xctest.filter { $0.hasSuffix(".FileHandleTests/testInfo") }
        XCTAssertEqual(both.count, 2)
        for specifier in both {
            let module = list.moduleForClass.narrowed(to: [specifier]).module(of: name)
            XCTAssertEqual(module.map { "\($0).FileHandleTests/testInfo" }, specifier)
        }
    }

    /// The log, the stream and the list together (what `report` re-reads of a run): every result once,
    /// and in JUnit every testcase a name of its own.
    func testImportAndJUnitKeepEveryResult() throws {
        let list = TestList.parse(try RecordedLogs.text("Lookalikes", "test-list.txt"))
        let run = try TestResultImporter.combined(logs: [Self.url("swift-test.log")], streams: [Self.url("swift-testing-events.jsonl")],
                                                  junit: [], testList: list)
        let cases = try records().filter { ($0["payload"] as? [String: Any])?["kind"] as? String == "testCaseStarted" }.count
        XCTAssertEqual(run.results.count, list.xctest.count + cases)
        var merged = TestRunResults()
        merged.merge(run.results)
        XCTAssertEqual(merged.results.count, run.results.count, "merging replaces no result")
        let junit = try JUnitReport(strict: false, packageRoot: "/p", hostname: "host").renderString(run)
        let testcase = try NSRegularExpression(pattern: #"<testcase classname="([^"]*)" name="([^"]*)""#)
        let names = testcase.matches(in: junit, range: NSRange(junit.startIndex..., in: junit)).map { match in
            (1...2).map { String(junit[Range(match.range(at: $0), in: junit)!]) }.joined(separator: " ")
        }
        XCTAssertEqual(names.count, run.results.count)
        XCTAssertEqual(Set(names).count, names.count, "\(names)")
    }
}

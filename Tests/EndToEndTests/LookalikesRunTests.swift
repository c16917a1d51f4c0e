import Foundation
import TestscopeHistory
import XCTest

/// `testscope run` on the Lookalikes fixture (parameterized cases whose arguments print alike, an XCTest
/// class of the same name in two test modules): every case the event stream reports and every module's
/// test is one result, the same in tests.json, JUnit, the history and `report` re-rendering the run.
final class LookalikesRunTests: XCTestCase {
    /// `id [arguments] outcome` of every result in a tests.json, sorted.
    func results(_ testsJSON: URL) throws -> [String] {
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: testsJSON)) as? [String: Any])
        return try XCTUnwrap(object["tests"] as? [[String: Any]]).map {
            "\(HistoryExecution.key(id: $0["id"] as? String ?? "?", arguments: $0["arguments"] as? String)) \($0["outcome"] as? String ?? "?")"
        }.sorted()
    }

    /// `classname name` of every testcase of a JUnit file.
    func testcases(_ junit: URL) throws -> [String] {
        let text = try String(contentsOf: junit, encoding: .utf8)
        let testcase = try NSRegularExpression(pattern: #"<testcase classname="([^"]*)" name="([^"]*)""#)
        return testcase.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            (1...2).map { String(text[Range(match.range(at: $0), in: text)!]) }.joined(separator: " ")
        }
    }

    func testEveryCaseAndEveryModulesTestIsOneResultInEveryOutput() throws {
        let folder = try TestscopeProcess.temporaryDirectory("lookalikes")
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Lookalikes")
        let output = folder.appendingPathComponent("out"), history = folder.appendingPathComponent("history.sqlite")
        let run = try TestscopeProcess.run(["run", "--package-path", package.path, "--output", output.path, "--format", "json,junit",
                                            "--history", history.path, "--quiet"])
        XCTAssertEqual(run.status, 1, "the fixture has failing tests: \(run.stderr)")
        let tests = try results(output.appendingPathComponent("tests.json"))

        // What ran, from the run's own artifacts: its event stream's cases and the listed XCTest tests.
        let records = try String(contentsOf: output.appendingPathComponent("swift-testing-events.jsonl"), encoding: .utf8)
            .split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { $0["payload"] as? [String: Any] }
        let cases = records.filter { $0["kind"] as? String == "testCaseStarted" }.count
        let failingCases = Set(records.filter { $0["kind"] as? String == "issueRecorded" }.compactMap { ($0["_testCase"] as? [String: Any])?["id"] as? String })
        let xctest = try String(contentsOf: output.appendingPathComponent("test-list.txt"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasSuffix(")") }.map(String.init)
        // SwiftPM's own JUnit of the fixture (recorded) names each XCTest test's module and failure.
        let xunit = try String(contentsOf: TestscopeProcess.samples.appendingPathComponent("recorded/Lookalikes/xunit.xml"), encoding: .utf8)
        let xcFailures = xunit.components(separatedBy: "<failure").count - 1

        XCTAssertEqual(tests.count, xctest.count + cases, "\(tests)")
        XCTAssertEqual(tests.filter { $0.hasSuffix(" failed") }.count, xcFailures + failingCases.count, "\(tests)")
        for specifier in xctest { XCTAssertEqual(tests.filter { $0.hasPrefix(specifier + " ") }.count, 1, specifier) }
        XCTAssertTrue(run.stdout.contains("\(tests.count - xcFailures - failingCases.count) passed, \(xcFailures + failingCases.count) failed"), run.stdout)

        // JUnit: a testcase per result, each with a name of its own.
        let junit = try testcases(output.appendingPathComponent("junit.xml"))
        XCTAssertEqual(junit.count, tests.count)
        XCTAssertEqual(Set(junit).count, junit.count, "\(junit)")

        // The history: one execution per result, under the keys tests.json gives.
        let stored = try XCTUnwrap(try HistoryStore(url: history, mode: .read).records().first)
        XCTAssertEqual(stored.executions.map { "\($0.test) \($0.outcome)" }.sorted(), tests)

        // `report` re-rendering the run gives exactly the run's results.
        let report = try TestscopeProcess.run(["report", "--package-path", package.path, "--output", output.path, "--format", "json,junit"])
        XCTAssertEqual(report.status, 1, report.stderr)
        XCTAssertEqual(try results(output.appendingPathComponent("tests.json")), tests)
        XCTAssertEqual(try testcases(output.appendingPathComponent("junit.xml")).sorted(), junit.sorted())
    }
}

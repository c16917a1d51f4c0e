import Foundation
import XCTest

/// `testscope report` importing recorded test results (no test run), and the GitHub Actions output.
final class TestImportTests: XCTestCase {
    var output: URL!
    override func setUpWithError() throws { output = try TestscopeProcess.temporaryDirectory("import") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: output) }

    func recorded(_ name: String) -> String {
        TestscopeProcess.samples.appendingPathComponent("recorded/Crashy/\(name)").path
    }

    func testImportLogStreamAndJUnitWithGitHubAnnotations() throws {
        let summary = output.appendingPathComponent("step-summary.md")
        try "previous step\n".write(to: summary, atomically: true, encoding: .utf8)
        let result = try TestscopeProcess.run(
            ["report", "--test-log", recorded("crash-swift-test.log"), "--event-stream", recorded("crash-swift-testing-events.jsonl"),
             "--test-list", recorded("test-list.txt"), "--package-path", TestscopeProcess.samples.appendingPathComponent("packages/Crashy").path,
             "--output", output.path, "--format", "text,json,junit"],
            environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary.path])
        XCTAssertEqual(result.status, 1, "a crashed test fails the run\n\(result.stderr)")
        // Annotations for each failure, on stdout.
        let annotations = result.stdout.split(separator: "\n").filter { $0.hasPrefix("::error ") }
        XCTAssertFalse(annotations.isEmpty, result.stdout)
        XCTAssertTrue(annotations.contains { $0.contains("testB_crashes") && $0.contains("file=") && $0.contains("line=") }, "\(annotations)")
        XCTAssertTrue(annotations.allSatisfy { !$0.dropFirst(2).contains("\n") })
        // The step summary is appended, not replaced.
        let markdown = try String(contentsOf: summary, encoding: .utf8)
        XCTAssertTrue(markdown.hasPrefix("previous step\n"))
        XCTAssertTrue(markdown.contains("### Testscope"))
        XCTAssertTrue(markdown.contains("testB_crashes"))
        // The results.
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("tests.json"))) as? [String: Any])
        let tests = try XCTUnwrap(json["tests"] as? [[String: Any]])
        XCTAssertEqual(tests.first { $0["id"] as? String == "CrashyTests.CrashyXCTests/testB_crashes" }?["outcome"] as? String, "crashed")
        XCTAssertEqual(tests.first { ($0["id"] as? String) == "CrashyTests.CrashySuite/unwrapsNil()" }?["outcome"] as? String, "crashed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent("junit.xml").path))
        XCTAssertTrue(result.stdout.contains("passed,"), result.stdout)
    }

    func testImportSwiftPMXUnit() throws {
        let result = try TestscopeProcess.run(["report", "--junit", recorded("xunit.xml"), "--output", output.path, "--format", "json"])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("tests.json"))) as? [String: Any])
        let tests = try XCTUnwrap(json["tests"] as? [[String: Any]])
        // SwiftPM's parallel xUnit has one testcase per XCTest test, failures marked.
        let xml = try String(contentsOfFile: recorded("xunit.xml"), encoding: .utf8)
        XCTAssertEqual(tests.count, xml.components(separatedBy: "<testcase ").count - 1)
        XCTAssertEqual(tests.filter { $0["outcome"] as? String == "failed" }.count, xml.components(separatedBy: "<failure").count - 1)
        XCTAssertEqual(result.status, xml.contains("<failure") ? 1 : 0, result.stderr)
    }

    func testBadTestInputs() throws {
        let notXML = output.appendingPathComponent("x.xml")
        try "not xml at all".write(to: notXML, atomically: true, encoding: .utf8)
        let junit = try TestscopeProcess.run(["report", "--junit", notXML.path, "--output", output.appendingPathComponent("o").path])
        XCTAssertEqual(junit.status, 65)
        XCTAssertEqual(junit.errorLines.count, 1, junit.stderr)
        XCTAssertTrue(junit.stderr.contains("x.xml"))
        let missing = try TestscopeProcess.run(["report", "--event-stream", "/nonexistent/events.jsonl", "--output", output.appendingPathComponent("o").path])
        XCTAssertEqual(missing.status, 65)
        XCTAssertTrue(missing.stderr.hasPrefix("testscope: error: cannot read /nonexistent/events.jsonl"), missing.stderr)
    }
}

import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeKit
import TestscopeReports
import XCTest

/// `report` checks that need no build, in-process through the Kit on the recorded samples: imported test
/// results with GitHub's annotations and step summary, SwiftPM's xUnit, merged exports, the gate. (Exit
/// statuses and stderr of the executable: EndToEndTests.)
final class ReportInProcessTests: XCTestCase {
    var output: URL!
    let console = CapturedConsole()

    override func setUpWithError() throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("kit-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: output) }

    func pipeline(environment extra: [String: String] = [:]) -> Pipeline {
        Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console),
                 environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""].merging(extra) { $1 })
    }

    func recorded(_ sample: String, _ file: String) -> URL { PipelineTests.samples.appendingPathComponent("recorded/\(sample)/\(file)") }
    func package(_ name: String) -> URL { PipelineTests.samples.appendingPathComponent("packages/\(name)") }

    /// A report of a sample's recorded export, its recording's paths mapped onto this checkout.
    func exportRequest(_ sample: String, formats: [ReportFormat], output: URL) throws -> ReportRequest {
        var settings = ReportSettings(formats: formats, output: output)
        let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: recorded(sample, "meta.json"))) as? [String: Any]
        settings.pathEquivalences = [PathEquivalence(from: try XCTUnwrap(meta?["packageRoot"] as? String), to: package(sample).path)]
        var request = ReportRequest(packageRoot: package(sample), settings: settings)
        request.exports = [recorded(sample, "coverage.json")]
        return request
    }

    func json(_ name: String, in folder: URL? = nil) throws -> [String: Any] {
        let data = try Data(contentsOf: (folder ?? output).appendingPathComponent(name))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testImportLogStreamAndJUnitWithGitHubAnnotations() throws {
        let summary = output.appendingPathComponent("step-summary.md")
        try "previous step\n".write(to: summary, atomically: true, encoding: .utf8)
        var request = ReportRequest(packageRoot: package("Crashy"), settings: ReportSettings(formats: [.text, .json, .junit], output: output))
        request.testLogs = [recorded("Crashy", "crash-swift-test.log")]
        request.eventStreams = [recorded("Crashy", "crash-swift-testing-events.jsonl")]
        request.testList = recorded("Crashy", "test-list.txt")
        let outcome = try pipeline(environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary.path]).report(request)
        XCTAssertEqual(outcome.status, .testsFailed, "a crashed test fails the run\n\(console.diagnosticsText)")
        // Annotations for each failure, on the output.
        let annotations = console.outputText.split(separator: "\n").filter { $0.hasPrefix("::error ") }
        XCTAssertFalse(annotations.isEmpty, console.outputText)
        XCTAssertTrue(annotations.contains { $0.contains("testB_crashes") && $0.contains("file=") && $0.contains("line=") }, "\(annotations)")
        XCTAssertTrue(annotations.allSatisfy { !$0.dropFirst(2).contains("\n") })
        // The step summary is appended, not replaced.
        let markdown = try String(contentsOf: summary, encoding: .utf8)
        XCTAssertTrue(markdown.hasPrefix("previous step\n"))
        XCTAssertTrue(markdown.contains("### Testscope"))
        XCTAssertTrue(markdown.contains("testB_crashes"))
        // The results.
        let tests = try XCTUnwrap(try json("tests.json")["tests"] as? [[String: Any]])
        XCTAssertEqual(tests.first { $0["id"] as? String == "CrashyTests.CrashyXCTests/testB_crashes" }?["outcome"] as? String, "crashed")
        XCTAssertEqual(tests.first { ($0["id"] as? String) == "CrashyTests.CrashySuite/unwrapsNil()" }?["outcome"] as? String, "crashed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent("junit.xml").path))
        XCTAssertTrue(console.outputText.contains("passed,"), console.outputText)
    }

    func testImportSwiftPMXUnit() throws {
        var request = ReportRequest(packageRoot: output, settings: ReportSettings(formats: [.json], output: output))
        request.junit = [recorded("Crashy", "xunit.xml")]
        let outcome = try pipeline().report(request)
        let tests = try XCTUnwrap(try json("tests.json")["tests"] as? [[String: Any]])
        // SwiftPM's parallel xUnit has one testcase per XCTest test, failures marked.
        let xml = try String(contentsOf: recorded("Crashy", "xunit.xml"), encoding: .utf8)
        XCTAssertEqual(tests.count, xml.components(separatedBy: "<testcase ").count - 1)
        XCTAssertEqual(tests.filter { $0["outcome"] as? String == "failed" }.count, xml.components(separatedBy: "<failure").count - 1)
        XCTAssertEqual(outcome.status, xml.contains("<failure") ? .testsFailed : .success, console.diagnosticsText)
    }

    func testMergingTwoExportsAddsCounts() throws {
        let single = output.appendingPathComponent("single"), double = output.appendingPathComponent("double")
        _ = try pipeline().report(try exportRequest("Shapes", formats: [.json], output: single))
        var twice = try exportRequest("Shapes", formats: [.json], output: double)
        twice.exports += [recorded("Shapes", "coverage.json")]
        _ = try pipeline().report(twice)
        let a = try XCTUnwrap((try json("coverage.json", in: single)["files"] as? [[String: Any]])?.first?["lines"] as? [[String: Any]])
        let b = try XCTUnwrap((try json("coverage.json", in: double)["files"] as? [[String: Any]])?.first?["lines"] as? [[String: Any]])
        XCTAssertFalse(a.isEmpty)
        XCTAssertEqual(a.count, b.count)
        for (x, y) in zip(a, b) {
            XCTAssertEqual((x["count"] as! NSNumber).uint64Value * 2, (y["count"] as! NSNumber).uint64Value)
        }
    }

    func testGatePerFileAndPassingGate() throws {
        var failing = try exportRequest("Inventory", formats: [.json], output: output)
        failing.settings.gate = CoverageGate(perFileLines: 60)
        let fail = try pipeline().report(failing)
        XCTAssertEqual(fail.status, .belowThreshold)
        XCTAssertTrue(console.diagnosticsText.contains("--fail-under-file"), console.diagnosticsText)
        XCTAssertTrue(console.diagnosticsText.contains("CSVImporter.swift 0.00%"), console.diagnosticsText)
        var passing = try exportRequest("Inventory", formats: [.json], output: output)
        passing.settings.gate = CoverageGate(lines: 10, functions: 10, regions: 10)
        XCTAssertEqual(try pipeline().report(passing).status, .success, console.diagnosticsText)
    }
}

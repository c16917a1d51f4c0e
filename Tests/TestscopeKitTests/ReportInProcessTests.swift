import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeKit
import TestscopeReports
import XCTest

/// `report` checks that need no build, in-process through the Kit on the recorded samples: imported test
/// results with GitHub's annotations and step summary, SwiftPM's xUnit, merged exports, the gate, counts near
/// 2^64, segments out of order, the index's link to a recorded Flaky page. (Exit statuses and stderr of the executable: EndToEndTests.)
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

    /// Every path and size under a folder but its `.build` (a test run may build there): a report writes only its output.
    func listing(_ folder: URL) -> [String] {
        guard let walk = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var entries: [String] = []
        while let path = walk.nextObject() as? String {
            if path == ".build" { walk.skipDescendants(); continue }
            entries.append("\(path) \(walk.fileAttributes?[.size] ?? "")")
        }
        return entries.sorted()
    }

    func json(_ name: String, in folder: URL? = nil) throws -> [String: Any] {
        let data = try Data(contentsOf: (folder ?? output).appendingPathComponent(name))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    #if os(Linux)
    /// A step summary that cannot be written (/dev/full: every write fails, ENOSPC) is one warning; the
    /// reports and the status are as without it (Foundation's `FileHandle.write` trapped there: status 132).
    func testAStepSummaryThatCannotBeWrittenIsAWarning() throws {
        var request = ReportRequest(packageRoot: package("Crashy"), settings: ReportSettings(formats: [.json], output: output))
        request.testLogs = [recorded("Crashy", "swift-test.log")]
        request.testList = recorded("Crashy", "test-list.txt")
        let outcome = try pipeline(environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": "/dev/full"]).report(request)
        XCTAssertEqual(outcome.status, .testsFailed, console.diagnosticsText)
        let warnings = console.diagnosticsText.split(separator: "\n").filter { $0.contains("GITHUB_STEP_SUMMARY") }
        XCTAssertEqual(warnings, ["testscope: warning: cannot write $GITHUB_STEP_SUMMARY (/dev/full): no space left on device; the step summary is left out"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent("tests.json").path))
    }
    #endif

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

    /// The coverage index links a Flaky page only when the folder's manifest records one (as `testscope flaky` does).
    func testTheCoverageIndexLinksTheFlakyPage() throws {
        try "<!DOCTYPE html><title>flaky</title>".write(to: output.appendingPathComponent("flaky.html"), atomically: true, encoding: .utf8)
        let request = try exportRequest("Shapes", formats: [.html], output: output)
        XCTAssertEqual(try pipeline().report(request).status, .success, console.diagnosticsText)
        var index = try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8)
        XCTAssertFalse(index.contains("flaky.html"), "a flaky.html that no command recorded is not linked")
        // What `testscope flaky` records in the folder's manifest (docs/output-folder.md).
        try #"{"version": 1, "pages": [{"kind": "flaky", "file": "flaky.html", "command": "flaky"}]}"#
            .write(to: output.appendingPathComponent(".testscope-pages.json"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try pipeline().report(request).status, .success, console.diagnosticsText)
        index = try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8)
        XCTAssertTrue(index.contains("<a href=\"flaky.html\">Flaky</a>"), "the top bar links the Flaky page")
        XCTAssertTrue(index.contains("<a href=\"index.html\" aria-current=\"page\">Coverage</a>"))
        let manifest = try String(contentsOf: output.appendingPathComponent(".testscope-pages.json"), encoding: .utf8)
        XCTAssertTrue(manifest.contains("\"kind\" : \"flaky\"") && manifest.contains("\"kind\" : \"coverage\""), manifest)
    }

    /// Counts of UInt64.max (how llvm-cov prints a counter that went negative) are kept as they are, never
    /// a crash, in every format; nothing is written beside the output (UInt64.max + 1 cannot be a count:
    /// EndToEndTests' `testExportRecordsThatCannotBeTrueAreBadInput`).
    func testHugeCountsAreSaturatedNotFatal() throws {
        let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: recorded("Shapes", "meta.json"))) as? [String: Any]
        let root = try XCTUnwrap(meta?["packageRoot"] as? String)
        var text = try String(contentsOf: recorded("Shapes", "coverage.json"), encoding: .utf8)
        let max = "18446744073709551615", over = "18446744073709551616"
        let shape = "\(root)/Sources/Shapes/Shape.swift"
        let replacements = [
            // Rect.init(width:height:) at Shape.swift:10, count 8: its segment, function and region get UInt64.max.
            ("[10,48,8,true,true,false]", "[10,48,\(max),true,true,false]"),
            (#""count":8,"filenames":["\#(shape)"],"mcdc_records":[],"name":"$s6Shapes4RectV5width6heightACSd_SdtcfC","regions":[[10,48,13,6,8,0,0,0]]"#,
             #""count":\#(max),"filenames":["\#(shape)"],"mcdc_records":[],"name":"$s6Shapes4RectV5width6heightACSd_SdtcfC","regions":[[10,48,13,6,\#(max),0,0,0]]"#),
            // Rect.area at Shape.swift:15, count 6: UInt64.max too.
            ("[15,29,6,true,true,false]", "[15,29,\(max),true,true,false]"),
            (#""count":6,"filenames":["\#(shape)"],"mcdc_records":[],"name":"$s6Shapes4RectV4areaSdvg","regions":[[15,29,15,47,6,0,0,0]]"#,
             #""count":\#(max),"filenames":["\#(shape)"],"mcdc_records":[],"name":"$s6Shapes4RectV4areaSdvg","regions":[[15,29,15,47,\#(max),0,0,0]]"#),
        ]
        for (old, new) in replacements {
            XCTAssertEqual(text.components(separatedBy: old).count - 1, 1, "expected exactly one \(old) in the recorded export")
            text = text.replacingOccurrences(of: old, with: new)
        }
        let inputs = output.appendingPathComponent("inputs"), reports = output.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        let huge = inputs.appendingPathComponent("huge-counts.json")
        try Data(text.utf8).write(to: huge)
        var request = try exportRequest("Shapes", formats: [.json, .lcov, .text], output: reports)
        request.exports = [huge]
        let (packageBefore, inputsBefore) = (listing(package("Shapes")), listing(inputs))
        let outcome = try pipeline().report(request)
        XCTAssertEqual(outcome.status, .success, console.diagnosticsText)
        XCTAssertFalse(console.diagnosticsText.contains("testscope: error:"), console.diagnosticsText)
        XCTAssertEqual(listing(package("Shapes")), packageBefore, "the report wrote into the package")
        XCTAssertEqual(listing(inputs), inputsBefore, "the report wrote beside its input")

        let json = try String(contentsOf: reports.appendingPathComponent("coverage.json"), encoding: .utf8)
        let lcov = try String(contentsOf: reports.appendingPathComponent("coverage.lcov"), encoding: .utf8)
        let txt = try String(contentsOf: reports.appendingPathComponent("coverage.txt"), encoding: .utf8)
        func matches(_ text: String, _ pattern: String) -> Bool { text.range(of: pattern, options: .regularExpression) != nil }
        for line in [10, 15] {
            XCTAssertTrue(matches(json, #""line":\s*\#(line),\s*"count":\s*\#(max)\b"#), "coverage.json: line \(line) not saturated")
            XCTAssertTrue(lcov.contains("DA:\(line),\(max)\n"), "coverage.lcov: DA:\(line) not saturated")
        }
        XCTAssertTrue(matches(json, #""line":\s*10,\s*"column":\s*48,\s*"endLine":\s*13,\s*"count":\s*\#(max)\b"#),
                      "coverage.json: Rect.init's function count is not \(max)")
        XCTAssertTrue(matches(json, #""line":\s*15,\s*"column":\s*29,\s*"endLine":\s*15,\s*"count":\s*\#(max)\b"#),
                      "coverage.json: Rect.area's function count is not \(max)")
        XCTAssertEqual(lcov.components(separatedBy: "FNDA:\(max),").count - 1, 2, "coverage.lcov: function counts not saturated")
        for (name, output) in [("coverage.json", json), ("coverage.lcov", lcov), ("coverage.txt", txt), ("stdout", console.outputText)] {
            XCTAssertFalse(output.contains(over), "\(name) has the unsaturated count")
            XCTAssertFalse(matches(output, #"1\.844674407\d*e\+?19"#), "\(name) has the count as a floating-point number")
        }
        XCTAssertTrue(txt.contains("Sources/Shapes/Shape.swift"))
    }

    /// Segments out of order: sorted, the same report as the export in order (never a trap or a hang).
    func testExportSegmentsOutOfOrderGiveTheSameReport() throws {
        let text = try String(contentsOf: recorded("Shapes", "coverage.json"), encoding: .utf8)
        // Every file's segment list reversed, as text (JSONSerialization would not keep the numbers as written).
        let regex = try NSRegularExpression(pattern: #""segments":\[(\[[^\[\]]*\](?:,\[[^\[\]]*\])*)\]"#)
        let ns = text as NSString
        var reversed = ""
        var last = 0
        var lists = 0
        for match in regex.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            reversed += ns.substring(with: NSRange(location: last, length: match.range.location - last))
            let inner = ns.substring(with: match.range(at: 1))
            let items = inner.dropFirst().dropLast().components(separatedBy: "],[")
            reversed += #""segments":[["# + items.reversed().joined(separator: "],[") + "]]"
            last = match.range.location + match.range.length
            lists += 1
        }
        reversed += ns.substring(from: last)
        XCTAssertGreaterThan(lists, 3)
        XCTAssertNotEqual(reversed, text)
        var outputs: [String] = []
        for (name, data) in [("ordered", text), ("reversed", reversed)] {
            let export = output.appendingPathComponent("\(name).json"), folder = output.appendingPathComponent(name)
            try Data(data.utf8).write(to: export)
            var request = try exportRequest("Shapes", formats: [.lcov], output: folder)
            request.exports = [export]
            let before = listing(package("Shapes"))
            XCTAssertEqual(try pipeline().report(request).status, .success, console.diagnosticsText)
            XCTAssertEqual(listing(package("Shapes")), before, "the report wrote into the package")
            outputs.append(try String(contentsOf: folder.appendingPathComponent("coverage.lcov"), encoding: .utf8))
        }
        XCTAssertTrue(outputs[0].contains("DA:"), outputs[0])
        XCTAssertEqual(outputs[0], outputs[1])
    }
}

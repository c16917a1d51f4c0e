import Foundation
import XCTest
import TestscopeExecution
import TestscopeTestSupport
@testable import TestscopeReports
@testable import TestscopeTestResults

/// JUnit output: goldens from real recordings, validated with xmllint against the consumers' schemas and
/// read back by Python's junitparser with the same counts.
final class JUnitReportTests: XCTestCase {
    /// Results of the Crashy fixture: its XCTest log plus its Swift Testing stream, and the crash run.
    static func crashyResults(crash: Bool) throws -> TestRunResults {
        let prefix = crash ? "crash-" : ""
        let list = TestList.parse(try RecordedLogs.text("Crashy", "test-list.txt"))
        var run = TestRunResults(startedAt: Date(timeIntervalSince1970: 1_795_000_000))
        // The recordings hold absolute paths of the recording machine: map them onto this checkout.
        let recordedRoot = try RecordedLogs.recordedRoot("Crashy")
        let log = try RecordedLogs.text("Crashy", "\(prefix)swift-test.log").replacingOccurrences(of: recordedRoot, with: packageRoot)
        let events = try RecordedLogs.text("Crashy", "\(prefix)swift-testing-events.jsonl")
            .replacingOccurrences(of: recordedRoot.replacingOccurrences(of: "/", with: "\\/"), with: packageRoot.replacingOccurrences(of: "/", with: "\\/"))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("junit-input-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try log.write(to: dir.appendingPathComponent("log"), atomically: true, encoding: .utf8)
        try events.write(to: dir.appendingPathComponent("events"), atomically: true, encoding: .utf8)
        run.merge(try TestResultImporter.combined(logs: [dir.appendingPathComponent("log")], streams: [dir.appendingPathComponent("events")],
                                                  junit: [], testList: list).results)
        run.properties = [("toolchain", "Swift 6.3.1")]
        return normalized(run)
    }

    /// Times and dates vary between recordings: fix them for goldens.
    static func normalized(_ run: TestRunResults) -> TestRunResults {
        var run = run
        for i in run.results.indices {
            run.results[i].duration = run.results[i].duration.map { _ in 0.001 }
            run.results[i].startedAt = Date(timeIntervalSince1970: 1_795_000_000)
            for m in run.results[i].metrics.indices {
                run.results[i].metrics[m].values = []
                run.results[i].metrics[m].average = 0
                run.results[i].metrics[m].relativeStandardDeviation = 0
            }
            if var crash = run.results[i].crash {
                crash.reason = crash.reason.map { $0.replacingOccurrences(of: #"0x[0-9a-f]+"#, with: "0x…", options: .regularExpression) }
                crash.frames = crash.frames.map { $0.replacingOccurrences(of: #"0x[0-9a-f]+"#, with: "0x…", options: .regularExpression) }
                run.results[i].crash = crash
            }
        }
        return run
    }

    static var packageRoot: String { RecordedLogs.repoRoot.path + "/sample-profiles/packages/Crashy" }

    func render(_ run: TestRunResults, strict: Bool) throws -> String {
        try JUnitReport(strict: strict, packageRoot: Self.packageRoot, hostname: "host").renderString(run)
            .replacingOccurrences(of: RecordedLogs.repoRoot.path, with: "$REPO")
    }

    func testGoldens() throws {
        for crash in [false, true] {
            let run = try Self.crashyResults(crash: crash)
            let name = crash ? "crash" : "normal"
            try Golden.assertMatches(try render(run, strict: false), "Crashy-\(name)-junit.xml")
            try Golden.assertMatches(try render(run, strict: true), "Crashy-\(name)-junit-strict.xml")
            let json = try TestResultsJSONReport(packageRoot: Self.packageRoot).renderString(run)
                .replacingOccurrences(of: RecordedLogs.repoRoot.path, with: "$REPO")
            try Golden.assertMatches(json, "Crashy-\(name)-tests.json")
        }
    }

    func testStrictOutputValidatesAgainstBothSchemas() throws {
        let xmllint = try XCTUnwrap(Toolchain.findInPath("xmllint", environment: ProcessInfo.processInfo.environment),
                                    "xmllint is required (apt-get install libxml2-utils)")
        for crash in [false, true] {
            let file = try temporaryFile(try render(try Self.crashyResults(crash: crash), strict: true))
            for schema in ConsumerSchemas.strictJUnit {
                let result = try ProcessRunner.run(xmllint, ["--noout", "--schema", schema.path, file.path])
                XCTAssertEqual(result.status, 0, "\(schema.lastPathComponent): \(result.stderrText)")
                XCTAssertTrue(result.stderrText.contains("validates"), result.stderrText)
            }
        }
    }

    func testDefaultOutputCarriesFileAndLineAndIsWellFormed() throws {
        let xmllint = try XCTUnwrap(Toolchain.findInPath("xmllint", environment: ProcessInfo.processInfo.environment))
        let text = try render(try Self.crashyResults(crash: true), strict: false)
        XCTAssertTrue(text.contains("file=\"Tests/CrashyTests/CrashySwiftTests.swift\" line=\""), text)
        XCTAssertTrue(text.contains("file=\"Sources/Crashy/Crashy.swift\" line=\"8\""), "a crash points at its first user frame")
        let file = try temporaryFile(text)
        let result = try ProcessRunner.run(xmllint, ["--noout", file.path])
        XCTAssertEqual(result.status, 0, result.stderrText)
    }

    func testJunitparserReadsTheSameCounts() throws {
        let python = try XCTUnwrap(Toolchain.findInPath("python3", environment: ProcessInfo.processInfo.environment))
        for crash in [false, true] {
            let run = try Self.crashyResults(crash: crash)
            let file = try temporaryFile(try render(run, strict: true))
            let script = """
            import sys
            from junitparser import JUnitXml, Failure, Error, Skipped
            xml = JUnitXml.fromfile(sys.argv[1])
            t = f = e = s = 0
            for suite in xml:
                for case in suite:
                    t += 1
                    for r in case.result:
                        if isinstance(r, Failure): f += 1
                        elif isinstance(r, Error): e += 1
                        elif isinstance(r, Skipped): s += 1
            print(t, f, e, s)
            """
            let result = try ProcessRunner.run(python, ["-c", script, file.path])
            XCTAssertEqual(result.status, 0, "junitparser is required (pip install junitparser): \(result.stderrText)")
            let numbers = result.stdoutText.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            let report = JUnitReport(strict: true, packageRoot: Self.packageRoot)
            XCTAssertEqual(numbers, [run.results.count, report.count(run.results, .failure), report.count(run.results, .error),
                                     report.count(run.results, .skipped)])
        }
    }

    func testIllegalCharactersAndANSIAreRemoved() throws {
        var result = TestCaseResult(id: "M.C/t", framework: .xctest, module: "M", suite: "C<&>\"", name: "t\u{07}", outcome: .failed)
        result.issues = [TestIssue(kind: .failure, message: "\u{1B}[31mred\u{1B}[0m ]]> \u{0B} bad\tend\nnext")]
        result.output = ["\u{1B}]0;title\u{07}printed \u{00} nul"]
        let text = try JUnitReport(strict: false, packageRoot: "/p").renderString(TestRunResults(results: [result]))
        XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 && !["\n", "\t", "\r"].contains($0) })
        XCTAssertFalse(text.contains("\u{1B}"))
        XCTAssertTrue(text.contains("message=\"red ]]&gt;"), text)
        XCTAssertTrue(text.contains("printed \u{FFFD} nul"), text)
        XCTAssertTrue(text.contains("classname=\"M.C&lt;&amp;&gt;&quot;\""))
        let xmllint = try XCTUnwrap(Toolchain.findInPath("xmllint", environment: ProcessInfo.processInfo.environment))
        let check = try ProcessRunner.run(xmllint, ["--noout", try temporaryFile(text).path])
        XCTAssertEqual(check.status, 0, check.stderrText)
    }

    func testTimesHaveAtMostThreeDecimals() {
        XCTAssertEqual(JUnitReport.time(0.0004), "0.000")
        XCTAssertEqual(JUnitReport.time(1234.5678), "1234.568")
        XCTAssertEqual(JUnitReport.timestamp(Date(timeIntervalSince1970: 0)), "1970-01-01T00:00:00")
    }

    func temporaryFile(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("junit-\(UUID().uuidString).xml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}

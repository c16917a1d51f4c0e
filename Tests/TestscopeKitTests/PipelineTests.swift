import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeFlakiness
import TestscopeKit
import TestscopeReports
import XCTest

/// `report` in-process through the library: requests in, outcomes out, the console captured — on the
/// recorded samples (`run` and `flaky` on real builds: FixtureTests' PipelineRunTests).
final class PipelineTests: XCTestCase {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let samples = repoRoot.appendingPathComponent("sample-profiles")

    var output: URL!
    let console = CapturedConsole()

    override func setUpWithError() throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: output) }

    var pipeline: Pipeline {
        Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console),
                 environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
    }

    func recorded(_ sample: String, _ file: String) -> URL { Self.samples.appendingPathComponent("recorded/\(sample)/\(file)") }
    func package(_ name: String) -> URL { Self.samples.appendingPathComponent("packages/\(name)") }

    /// The recording's absolute package root mapped onto this checkout (the exports name the folder
    /// they were recorded in, which is not this one in another clone or worktree).
    func equivalence(_ sample: String) throws -> PathEquivalence {
        let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: recorded(sample, "meta.json"))) as? [String: Any]
        return PathEquivalence(from: try XCTUnwrap(meta?["packageRoot"] as? String), to: package(sample).path)
    }

    /// The report's totals are the per-file counts added up, and every file written is the model rendered.
    func testReportFromARecordedExportGivesTheModelTheFilesAndTheConsoleText() throws {
        var settings = ReportSettings(output: output)
        settings.pathEquivalences = [try equivalence("Inventory")]
        var request = ReportRequest(packageRoot: package("Inventory"), settings: settings)
        request.exports = [recorded("Inventory", "coverage.json")]
        request.testLogs = [recorded("Inventory", "swift-test.log")]
        request.eventStreams = [recorded("Inventory", "swift-testing-events.jsonl")]
        request.testList = recorded("Inventory", "test-list.txt")
        let outcome = try pipeline.report(request)

        let coverage = try XCTUnwrap(outcome.coverage)
        XCTAssertFalse(coverage.files.isEmpty)
        XCTAssertEqual(coverage.totals.lines.covered, coverage.files.map(\.summary.lines.covered).reduce(0, +))
        let tests = try XCTUnwrap(outcome.tests)
        XCTAssertEqual(outcome.status, tests.hasFailures ? .testsFailed : .success)
        // Every line of the recorded `swift test list` is a result.
        let listed = try String(contentsOf: recorded("Inventory", "test-list.txt"), encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(Set(tests.results.map(\.id)).count >= listed.count, true, "\(tests.results.count) results for \(listed.count) tests")
        // The files on disk are this model rendered.
        for name in ["coverage.json", "coverage.lcov", "coverage.txt", "index.html", "tests.json", "junit.xml", "tests.html"] {
            XCTAssertTrue(outcome.written.contains(output.appendingPathComponent(name).path), name)
        }
        // Streamed: the files were written as they were built; each file's record in coverage.lcov has
        // the model's line counts.
        var records: [String: CoverageRatio] = [:]
        var current = ""
        for line in try String(contentsOf: output.appendingPathComponent("coverage.lcov"), encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("SF:") { current = String(line.dropFirst(3)) }
            if line.hasPrefix("LF:") { records[current, default: CoverageRatio()].total = Int(line.dropFirst(3))! }
            if line.hasPrefix("LH:") { records[current, default: CoverageRatio()].covered = Int(line.dropFirst(3))! }
        }
        XCTAssertEqual(records, Dictionary(uniqueKeysWithValues: coverage.files.map { ($0.path, $0.summary.lines) }))
        // What a user reads went to the console, not to the process's own streams.
        XCTAssertTrue(console.outputText.contains("TOTAL"), console.outputText)
        XCTAssertTrue(console.outputText.contains("HTML report: \(output.path)/index.html"), console.outputText)
        // The final screen: the verdict first, then the tables, the reports' line last.
        let screen = console.outputText
        let verdict = try XCTUnwrap(screen.range(of: "Tests: "), screen)
        let totals = try XCTUnwrap(screen.range(of: "TOTAL"), screen)
        let paths = try XCTUnwrap(screen.range(of: "HTML report: "), screen)
        XCTAssertTrue(verdict.lowerBound < totals.lowerBound && totals.lowerBound < paths.lowerBound, screen)
        XCTAssertEqual(screen.split(separator: "\n").last.map { $0.hasPrefix("HTML report: ") }, true, screen)
    }

    /// The gate is part of the outcome: the failures as values, the verdict, one line each on stderr.
    func testAThresholdAboveTheTotalsFailsTheGate() throws {
        var settings = ReportSettings(formats: [.text], output: output)
        settings.gate = CoverageGate(lines: 100, perFileLines: 100)
        settings.pathEquivalences = [try equivalence("Hostile")]
        var request = ReportRequest(packageRoot: package("Hostile"), settings: settings)
        request.exports = [recorded("Hostile", "coverage.json")]
        let outcome = try pipeline.report(request)
        let coverage = try XCTUnwrap(outcome.coverage)
        XCTAssertLessThan(coverage.totals.lines.percent ?? 100, 100)
        XCTAssertEqual(outcome.status, .belowThreshold)
        XCTAssertEqual(outcome.gateFailures.map(\.threshold), [.lines, .fileLines])
        let gateLines = console.diagnosticsText.split(separator: "\n").filter { $0.hasPrefix("testscope: coverage gate failed") }
        XCTAssertEqual(gateLines.count, 2, console.diagnosticsText)
        XCTAssertTrue(gateLines[0].contains("(--fail-under-lines)"))
    }

    /// Bad input is a typed error from the library, before anything is written.
    func testAMissingExportIsAnErrorAndWritesNothing() throws {
        var request = ReportRequest(packageRoot: package("Shapes"), settings: ReportSettings(output: output))
        request.exports = [output.appendingPathComponent("missing.json")]
        XCTAssertThrowsError(try pipeline.report(request)) { error in
            XCTAssertEqual(error as? CoverageError, .fileNotFound(path: output.appendingPathComponent("missing.json").path))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))
        // No inputs and no earlier run in the folder: a bad-input error naming the folder, nothing written.
        XCTAssertThrowsError(try pipeline.report(ReportRequest(packageRoot: package("Shapes"), settings: ReportSettings(output: output)))) { error in
            XCTAssertEqual(error as? LastRunError, .none(folder: output.standardizedFileURL.path))
            XCTAssertEqual((error as? ClassifiedError)?.errorClass, .badInput)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))
    }
}

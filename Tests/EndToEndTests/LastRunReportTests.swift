import Foundation
import XCTest

/// `testscope report` without inputs: the last `run` into the output folder reported again (`.testscope-run.json`),
/// with other formats and gates; a clear bad-input error when there was no run.
final class LastRunReportTests: XCTestCase {
    private var package: URL!

    override func setUpWithError() throws {
        package = try TestscopeProcess.temporaryDirectory("last-run").appendingPathComponent("Shapes")
        try FileManager.default.copyItem(at: TestscopeProcess.samples.appendingPathComponent("packages/Shapes"), to: package)
        for leftover in [".build", ".testscope"] { try? FileManager.default.removeItem(at: package.appendingPathComponent(leftover)) }
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }

    private func json(_ name: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: package.appendingPathComponent(".testscope/\(name)"))) as? [String: Any])
    }

    /// Each test's id and outcome in tests.json, sorted.
    private func outcomes() throws -> [String] {
        try XCTUnwrap(try json("tests.json")["tests"] as? [[String: Any]])
            .map { "\($0["id"] as? String ?? "?") \($0["arguments"] as? String ?? "") \($0["outcome"] as? String ?? "?")" }.sorted()
    }

    func testReportWithoutInputsRendersTheLastRunAgain() throws {
        let noRun = try TestscopeProcess.run(["report"], in: package)
        XCTAssertEqual(noRun.status, 65, noRun.stderr)
        XCTAssertEqual(noRun.errorLines, ["testscope: error: no earlier run in \(package.path)/.testscope to report on; run 'testscope run' first, or pass inputs (--export, --profile with --binary, --build-path, --test-log, --event-stream, --junit)"])

        let run = try TestscopeProcess.run(["run", "--format", "json", "--quiet"], in: package)
        XCTAssertEqual(run.status, 0, run.stderr)
        let runTotals = try XCTUnwrap(try json("coverage.json")["totals"] as? [String: Any])
        let runOutcomes = try outcomes()
        XCTAssertFalse(runOutcomes.isEmpty)
        XCTAssertFalse(FileManager.default.fileExists(atPath: package.appendingPathComponent(".testscope/junit.xml").path))

        // Other formats and a gate, from the same profiles, binary, log and event streams.
        let report = try TestscopeProcess.run(["report", "--format", "json,junit,html", "--fail-under-lines", "99.9"], in: package)
        XCTAssertEqual(report.status, 2, "the new gate fails: \(report.stderr)")
        XCTAssertTrue(report.stderr.contains("reporting the last run in \(package.path)/.testscope again"), report.stderr)
        for name in ["junit.xml", "index.html", "tests.html"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: package.appendingPathComponent(".testscope/\(name)").path), name)
        }
        XCTAssertEqual(try json("coverage.json")["totals"] as? NSDictionary, runTotals as NSDictionary, "the same coverage as the run's")
        XCTAssertEqual(try outcomes(), runOutcomes, "the same test results as the run's")

        // A file of the record that is gone: one line naming it.
        try FileManager.default.removeItem(at: package.appendingPathComponent(".testscope/swift-test.log"))
        let gone = try TestscopeProcess.run(["report"], in: package)
        XCTAssertEqual(gone.status, 65, gone.stderr)
        XCTAssertEqual(gone.errorLines.count, 1, gone.stderr)
        XCTAssertTrue(gone.stderr.contains("swift-test.log, recorded in \(package.path)/.testscope/.testscope-run.json, no longer exists"), gone.stderr)
    }
}

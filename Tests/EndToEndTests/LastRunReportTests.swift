import Foundation
import XCTest

/// `testscope report` without inputs: the last `run` into the output folder reported again (`.testscope-run.json`),
/// with other formats and gates; a clear bad-input error when there was no run.
final class LastRunReportTests: XCTestCase {
    private var package: URL!
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try TestscopeProcess.temporaryDirectory("last-run")
        package = try TestscopeProcess.fixtureCopy("Shapes")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    private func json(_ name: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: package.appendingPathComponent(".testscope/\(name)"))) as? [String: Any])
    }

    /// Each test's id and outcome in tests.json, sorted.
    private func outcomes() throws -> [String] {
        try XCTUnwrap(try json("tests.json")["tests"] as? [[String: Any]])
            .map { "\($0["id"] as? String ?? "?") \($0["arguments"] as? String ?? "") \($0["outcome"] as? String ?? "?")" }.sorted()
    }

    /// `git status --porcelain` of the package.
    private func gitStatus() throws -> String {
        try TestscopeProcess.runShell("git status --porcelain --untracked-files=all", in: package).stdout
    }

    /// An output folder Testscope creates holds a `.gitignore` of `*` (as coverage.py's `htmlcov/`), so a
    /// package whose own `.gitignore` does not list it shows nothing new in `git status` after `run` and
    /// `report`; a folder that existed keeps its own `.gitignore`, and gets none.
    func testTheOutputFolderItCreatesIsIgnoredByGit() throws {
        try ".build/\n".write(to: package.appendingPathComponent(".gitignore"), atomically: true, encoding: .utf8)
        let mine = package.appendingPathComponent("mine")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
        try "notes.txt\n".write(to: mine.appendingPathComponent(".gitignore"), atomically: true, encoding: .utf8)
        let initialized = try TestscopeProcess.runShell(
            "git init -q && git add -A && git -c user.name=t -c user.email=t@example.com commit -q -m fixture", in: package)
        XCTAssertEqual(initialized.status, 0, initialized.stderr)
        XCTAssertEqual(try gitStatus(), "")

        let run = try TestscopeProcess.run(["run", "--format", "json,html", "--quiet"], in: package)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: package.appendingPathComponent(".testscope/coverage.json").path))
        XCTAssertEqual(try gitStatus(), "", "nothing of .testscope/ in git status after run")
        XCTAssertEqual(try String(contentsOf: package.appendingPathComponent(".testscope/.gitignore"), encoding: .utf8).split(separator: "\n").last, "*")

        let report = try TestscopeProcess.run(["report", "--from", ".testscope", "--output", "reports/coverage", "--format", "lcov"], in: package)
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: package.appendingPathComponent("reports/coverage/coverage.lcov").path))
        XCTAssertEqual(try gitStatus(), "", "nothing of a new --output folder in git status after report")

        // A folder the user made: its .gitignore is theirs, and what Testscope writes there is the user's to ignore.
        let intoMine = try TestscopeProcess.run(["report", "--from", ".testscope", "--output", "mine", "--format", "lcov"], in: package)
        XCTAssertEqual(intoMine.status, 0, intoMine.stderr)
        XCTAssertEqual(try String(contentsOf: mine.appendingPathComponent(".gitignore"), encoding: .utf8), "notes.txt\n")
        XCTAssertEqual(try gitStatus(), "?? mine/coverage.lcov\n")
    }

    func testReportWithoutInputsRendersTheLastRunAgain() throws {
        let noRun = try TestscopeProcess.run(["report"], in: package)
        XCTAssertEqual(noRun.status, 65, noRun.stderr)
        XCTAssertEqual(noRun.errorLines, ["testscope: error: no earlier run in \(package.path)/.testscope to report on; run 'testscope run' first, name the output folder of a run with --from DIR, or pass inputs (--export, --profile with --binary, --build-path, --test-log, --event-stream, --junit)"])

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

        // The same run into another folder (`--from`: where the run is; `--output`: where the reports go).
        let elsewhere = scratch.appendingPathComponent("strict")
        let strict = try TestscopeProcess.run(["report", "--from", ".testscope", "--output", elsewhere.path, "--format", "junit,json", "--junit-strict"], in: package)
        XCTAssertEqual(strict.status, 0, strict.stderr)
        XCTAssertTrue(strict.stderr.contains("reporting the last run in \(package.path)/.testscope again"), strict.stderr)
        let strictJUnit = try String(contentsOf: elsewhere.appendingPathComponent("junit.xml"), encoding: .utf8)
        XCTAssertEqual(strictJUnit.components(separatedBy: "<testcase ").count - 1, runOutcomes.count, strictJUnit)
        XCTAssertFalse(strictJUnit.contains(" file=\""), "--junit-strict: no file attributes")
        let strictCoverage = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: elsewhere.appendingPathComponent("coverage.json"))) as? [String: Any])
        XCTAssertEqual(strictCoverage["totals"] as? NSDictionary, runTotals as NSDictionary, "the same coverage as the run's")
        XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent(".testscope-run.json").path), "the record stays with the run")
        // From another working directory, without --package-path: the package is the one the run recorded.
        let away = try TestscopeProcess.run(["report", "--from", package.appendingPathComponent(".testscope").path, "--output", elsewhere.path, "--format", "json"],
                                            in: scratch)
        XCTAssertEqual(away.status, 0, away.stderr)
        let awayCoverage = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: elsewhere.appendingPathComponent("coverage.json"))) as? [String: Any])
        XCTAssertEqual(awayCoverage["totals"] as? NSDictionary, runTotals as NSDictionary, "the run's package, not the working directory")
        // --from names a recorded run: with inputs of its own it is a usage error.
        let both = try TestscopeProcess.run(["report", "--from", ".testscope", "--test-log", ".testscope/swift-test.log"], in: package)
        XCTAssertEqual(both.status, 64, both.stderr)
        XCTAssertTrue(both.stderr.contains("give either --from or inputs"), both.stderr)
        let noRunThere = try TestscopeProcess.run(["report", "--from", elsewhere.path], in: package)
        XCTAssertEqual(noRunThere.status, 65, noRunThere.stderr)
        XCTAssertTrue(noRunThere.stderr.contains("no earlier run in \(elsewhere.path) to report on"), noRunThere.stderr)

        // A file of the record that is gone: one line naming it.
        try FileManager.default.removeItem(at: package.appendingPathComponent(".testscope/swift-test.log"))
        let gone = try TestscopeProcess.run(["report"], in: package)
        XCTAssertEqual(gone.status, 65, gone.stderr)
        XCTAssertEqual(gone.errorLines.count, 1, gone.stderr)
        XCTAssertTrue(gone.stderr.contains("swift-test.log, recorded in \(package.path)/.testscope/.testscope-run.json, no longer exists"), gone.stderr)
    }
}

import Foundation
import TestscopeExecution
import TestscopeHistory
import TestscopeTestSupport
import XCTest

/// `--history postgresql://…` with the real binary and a real throwaway server: a run while the server is
/// away keeps its record in the output folder (one warning, the run's own status), `history merge` sends it,
/// `testscope history URL` reads it; no libpq is one line with status 65. No password is ever printed.
final class PostgresHistoryCommandTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws { folder = try TestscopeProcess.temporaryDirectory("pg-history") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }
    override class func tearDown() { PostgresCluster.stopShared() }

    func testARunWhileTheServerIsAwayIsKeptThenMergedAndRead() throws {
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Flaky")
        let output = folder.appendingPathComponent("out")
        // A socket folder with no server in it: away.
        let away = "postgresql://ci:hunter2-secret@/hist?host=\(folder.path)"
        let run = try TestscopeProcess.run(["run", "--package-path", package.path, "--output", output.path, "--history", away, "--quiet"])
        XCTAssertEqual(run.status, 1, "the fixture's failing tests decide the status, not the history: \(run.stderr)")
        let pending = output.appendingPathComponent("history-pending.sqlite")
        let warnings = run.stderr.split(separator: "\n").filter { $0.hasPrefix("testscope: warning: this run is kept in") }
        XCTAssertEqual(warnings.count, 1, run.stderr)
        XCTAssertTrue(warnings.first?.contains(pending.path) == true, run.stderr)
        XCTAssertFalse((run.stdout + run.stderr).contains("hunter2"), "the password is never printed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent("tests.json").path), "the run's reports are written")

        let url = try PostgresCluster.sharedCluster().createDatabase().absoluteString
        let merge = try TestscopeProcess.run(["history", "merge", pending.path, "--into", url])
        XCTAssertEqual(merge.status, 0, merge.stderr)
        XCTAssertTrue(merge.stdout.contains("1 run added, 0 already there"), merge.stdout)
        let show = try TestscopeProcess.run(["history", url])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.hasPrefix("History \(url): 1 run,"), show.stdout)
        XCTAssertEqual(try HistoryStore(url: URL(string: url)!, mode: .read).records(), try HistoryStore(url: pending, mode: .read).records())
    }

    func testNoLibpqIsOneLine() throws {
        let result = try TestscopeProcess.run(["history", "postgresql://ci:hunter2-secret@db.invalid/hist"],
                                              environment: ["TESTSCOPE_LIBPQ": folder.appendingPathComponent("libpq.so.5").path])
        XCTAssertEqual(result.status, 65)
        XCTAssertEqual(result.stderr, "testscope: error: --history postgresql://ci:***@db.invalid/hist needs libpq (Debian/Ubuntu: apt-get install libpq5; macOS: brew install libpq)\n")
    }
}

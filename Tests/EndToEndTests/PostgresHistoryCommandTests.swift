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

    /// `history push`: the kept runs sent to the server once it answers, the file removed; a server still away is
    /// one line and status 65 with the file kept; no file is one line and 0; a run already there is not sent twice.
    func testHistoryPushSendsTheKeptRunsOnce() throws {
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Flaky")
        let output = folder.appendingPathComponent("out")
        let pending = output.appendingPathComponent("history-pending.sqlite")
        let away = "postgresql://ci:hunter2-secret@/hist?host=\(folder.path)"
        let run = try TestscopeProcess.run(["run", "--package-path", package.path, "--output", output.path, "--history", away, "--quiet"])
        XCTAssertEqual(run.status, 1, run.stderr)
        let kept = try HistoryStore(url: pending, mode: .read).records()
        XCTAssertEqual(kept.count, 1)

        let stillAway = try TestscopeProcess.run(["history", "push", "--output", output.path, "--into", away])
        XCTAssertEqual(stillAway.status, 65, stillAway.stderr)
        XCTAssertEqual(stillAway.stdout, "")
        XCTAssertEqual(stillAway.errorLines.count, 1, stillAway.stderr)
        XCTAssertTrue(stillAway.stderr.hasPrefix("testscope: error: history postgresql://ci:***@/hist?host=\(folder.path) cannot be reached ("), stillAway.stderr)
        XCTAssertTrue(stillAway.stderr.hasSuffix("; the runs stay in \(pending.path)\n"), stillAway.stderr)
        XCTAssertFalse(stillAway.stderr.contains("hunter2"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: pending.path), "kept")
        let copy = folder.appendingPathComponent("copy.sqlite")
        try FileManager.default.copyItem(at: pending, to: copy)

        let url = try PostgresCluster.sharedCluster().createDatabase()
        let push = try TestscopeProcess.run(["history", "push", "--output", output.path, "--into", url.absoluteString])
        XCTAssertEqual(push.status, 0, push.stderr)
        XCTAssertEqual(push.stdout, "sent 1 run kept in \(pending.path) to \(url.historyDisplay)\n")
        XCTAssertEqual(push.stderr, "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: pending.path), "removed once the runs are in")
        XCTAssertEqual(try HistoryStore(url: url, mode: .read).records(), kept)

        let again = try TestscopeProcess.run(["history", "push", "--output", output.path, "--into", url.absoluteString])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.stdout, "nothing to send: no \(pending.path)\n")

        // The same runs kept again (a push that sent them but could not remove the file): not stored twice.
        try FileManager.default.copyItem(at: copy, to: pending)
        let twice = try TestscopeProcess.run(["history", "push", "--output", output.path, "--into", url.absoluteString])
        XCTAssertEqual(twice.stdout, "sent 0 runs kept in \(pending.path) to \(url.historyDisplay) (1 already there)\n", twice.stderr)
        XCTAssertEqual(try HistoryStore(url: url, mode: .read).records(), kept)
        XCTAssertFalse(FileManager.default.fileExists(atPath: pending.path))

        // Without --output: .testscope under the package around the current folder (here none: the folder's own).
        let here = try TestscopeProcess.run(["history", "push", "--into", url.absoluteString], in: folder)
        XCTAssertEqual(here.status, 0, here.stderr)
        XCTAssertEqual(here.stdout, "nothing to send: no \(folder.appendingPathComponent(".testscope/history-pending.sqlite").path)\n")
    }

    func testNoLibpqIsOneLine() throws {
        let result = try TestscopeProcess.run(["history", "postgresql://ci:hunter2-secret@db.invalid/hist"],
                                              environment: ["TESTSCOPE_LIBPQ": folder.appendingPathComponent("libpq.so.5").path])
        XCTAssertEqual(result.status, 65)
        XCTAssertEqual(result.stderr, "testscope: error: --history postgresql://ci:***@db.invalid/hist needs libpq (Debian/Ubuntu: apt-get install libpq5; macOS: brew install libpq)\n")
    }
}

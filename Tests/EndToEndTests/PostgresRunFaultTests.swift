import Foundation
import TestscopeExecution
import TestscopeHistory
import TestscopeTestSupport
import XCTest

/// Issue 44's faults through `testscope run --history postgresql://…` on a fixture package and a real
/// throwaway server: a wrong password, a read-only role, the server killed or frozen while the run's
/// record is being appended — each one warning line naming what is wrong and the kept file, the run's own
/// status (the fixture has failing tests: 1), its reports written, its record in `history-pending.sqlite`.
/// Another program's tables are refused before the build (65). No password is ever printed.
final class PostgresRunFaultTests: XCTestCase {
    var folder: URL!
    let package = TestscopeProcess.samples.appendingPathComponent("packages/Flaky")
    var output: URL { folder.appendingPathComponent("out") }
    var pending: URL { output.appendingPathComponent("history-pending.sqlite") }

    override func setUpWithError() throws { folder = try TestscopeProcess.temporaryDirectory("pg-run-faults") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }
    override class func tearDown() { PostgresCluster.stopShared() }

    /// `testscope run` of the fixture into `output` with `--history url`, bounded (a hang fails the test: status 124).
    func run(_ url: URL, environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        try TestscopeProcess.runLogged([TestscopeProcess.executable.path, "run", "--package-path", package.path, "--output", output.path,
                                        "--history", url.absoluteString, "--quiet"],
                                       limit: 900, environment: environment, log: folder.appendingPathComponent("run.log"))
    }

    /// The checks every fault shares: the run's status and reports, one warning naming the kept file and
    /// containing `reason`, the record in the file, the password nowhere.
    func assertKept(_ result: (status: Int32, output: String), reason: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(result.status, 1, "the fixture's failing tests decide the status, not the history: \(result.output)", file: file, line: line)
        let warnings = result.output.split(separator: "\n").filter { $0.hasPrefix("testscope: warning:") }
        XCTAssertEqual(warnings.count, 1, result.output, file: file, line: line)
        XCTAssertTrue(warnings.first?.hasPrefix("testscope: warning: this run is kept in \(pending.path) (") == true, result.output, file: file, line: line)
        XCTAssertTrue(warnings.first?.contains(reason) == true, "\(reason) in: \(result.output)", file: file, line: line)
        XCTAssertFalse(result.output.contains("hunter2") || result.output.contains(PostgresCluster.password), "no password printed", file: file, line: line)
        for report in ["tests.json", "junit.xml", "history.html"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent(report).path), "\(report) written", file: file, line: line)
        }
        XCTAssertEqual(try HistoryStore(url: pending, mode: .read).records().map(\.run.command), ["run"], file: file, line: line)
    }

    func testAWrongPasswordKeepsTheRecord() throws {
        let cluster = try PostgresCluster.sharedCluster()
        let database = String(try cluster.createDatabase().path.dropFirst())
        let url = cluster.url(database: database, user: PostgresCluster.passwordUser, password: "hunter2-wrong")
        try assertKept(try run(url), reason: "password authentication failed")
        XCTAssertEqual(try cluster.value("SELECT count(*) FROM pg_namespace WHERE nspname = 'testscope'", database: database), "0", "nothing written")
    }

    func testAReadOnlyRoleKeepsTheRecord() throws {
        let cluster = try PostgresCluster.sharedCluster()
        let owner = try cluster.createDatabase()
        let database = String(owner.path.dropFirst())
        try HistoryStore(url: owner, mode: .write).close()
        for grant in ["GRANT USAGE ON SCHEMA testscope TO \(PostgresCluster.passwordUser)",
                      "GRANT SELECT ON ALL TABLES IN SCHEMA testscope TO \(PostgresCluster.passwordUser)"] {
            try cluster.sql(grant, database: database)
        }
        let url = cluster.url(database: database, user: PostgresCluster.passwordUser, password: PostgresCluster.password)
        try assertKept(try run(url), reason: "permission denied")
        XCTAssertEqual(try cluster.value("SELECT count(*) FROM testscope.run", database: database), "0", "nothing written")
    }

    /// The postmaster and its backends SIGKILLed while the run's append waits (another session holds a lock on
    /// `testscope.run` that lets reads through): the connection is lost, the record kept; after crash recovery no run is stored.
    func testTheServerKilledDuringTheAppendKeepsTheRecord() throws {
        let cluster = try PostgresCluster()
        defer { cluster.stop() }
        let url = try cluster.createDatabase()
        let result = try runWithAppendHeld(cluster, url) { processes in
            for pid in processes { kill(pid, SIGKILL) }
        }
        try assertKept(result, reason: "cannot be reached")
        Thread.sleep(forTimeInterval: 0.5)
        try cluster.restartAfterCrash()
        XCTAssertEqual(try cluster.value("SELECT count(*) FROM testscope.run", database: String(url.path.dropFirst())), "0", "no half-written run")
    }

    /// The postmaster and its backends SIGSTOPped while the run's append waits: the server's own statement_timeout
    /// cannot fire, the client gives up after its bound (TESTSCOPE_HISTORY_TIMEOUT + 10 s) and keeps the record. 8 s: the
    /// server must not end the wait itself before the test has frozen it (a few psql polls on a busy machine).
    func testTheServerFrozenDuringTheAppendKeepsTheRecordAfterTheClientTimeout() throws {
        let cluster = try PostgresCluster()
        defer { cluster.stop() }
        let url = try cluster.createDatabase()
        var stopped: [pid_t] = []
        defer { for pid in stopped { kill(pid, SIGCONT) } }
        var frozenAt = Date()
        let result = try runWithAppendHeld(cluster, url, environment: ["TESTSCOPE_HISTORY_TIMEOUT": "8"]) { processes in
            stopped = processes
            frozenAt = Date()
            for pid in processes { kill(pid, SIGSTOP) }
        }
        try assertKept(result, reason: "the server did not answer within 18 s")
        XCTAssertLessThan(Date().timeIntervalSince(frozenAt), 18 + 30, "the run ends soon after the client's bound")
    }

    /// Another program's tables in the schema `testscope`: refused before the build (no report written, nothing kept), untouched.
    func testAnotherProgramsTablesAreRefusedBeforeTheBuild() throws {
        let cluster = try PostgresCluster.sharedCluster()
        let url = try cluster.createDatabase()
        let database = String(url.path.dropFirst())
        try cluster.sql("CREATE SCHEMA testscope; CREATE TABLE testscope.run(x int); INSERT INTO testscope.run VALUES (1)", database: database)
        let result = try run(url)
        XCTAssertEqual(result.status, 65, result.output)
        XCTAssertEqual(result.output, "testscope: error: history \(url.historyDisplay) has a schema testscope with another program's tables "
                       + "(not a Testscope history); it was left untouched — use another database, or drop that schema\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("tests.json").path), "refused before the build")
        XCTAssertFalse(FileManager.default.fileExists(atPath: pending.path))
        XCTAssertEqual(try cluster.value("SELECT count(*) FROM testscope.run", database: database), "1")
        XCTAssertEqual(try cluster.value("SELECT count(*) FROM pg_tables WHERE schemaname = 'testscope'", database: database), "1")
    }

    /// Runs the fixture with `--history url` while a session holds `LOCK testscope.run IN SHARE MODE` (the run's
    /// reads at the start go through, its append waits), calls `fault` with the server's processes once the
    /// append waits, and returns the run's result. Every wait is bounded.
    func runWithAppendHeld(_ cluster: PostgresCluster, _ url: URL, environment: [String: String] = [:],
                           fault: ([pid_t]) -> Void) throws -> (status: Int32, output: String) {
        try HistoryStore(url: url, mode: .write).close()
        let database = String(url.path.dropFirst())
        let holder = Process()
        holder.executableURL = cluster.psql
        holder.arguments = cluster.psqlArguments(database: database) + ["-c", "BEGIN; LOCK testscope.run IN SHARE MODE; SELECT pg_sleep(900)"]
        (holder.standardOutput, holder.standardError) = (FileHandle.nullDevice, FileHandle.nullDevice)
        try holder.run()
        defer { if holder.isRunning { holder.terminate() } }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<(status: Int32, output: String), Error>?
        nonisolated(unsafe) let test = self
        Thread.detachNewThread {
            result = Result { try test.run(url, environment: environment) }
            done.signal()
        }
        let waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = 'testscope'"
        var held = false
        while !held, done.wait(timeout: .now() + 0.1) == .timedOut {
            held = try cluster.value(waiting) == "1"
        }
        XCTAssertTrue(held, "the run's append waited for the lock")
        if held { fault(try cluster.processes()) }
        XCTAssertEqual(done.wait(timeout: .now() + 960), .success, "the run ended")
        return try XCTUnwrap(result).get()
    }
}

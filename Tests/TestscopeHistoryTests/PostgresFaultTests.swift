import Foundation
import TestscopeExecution
import TestscopeTestSupport
import XCTest
@testable import TestscopeHistory

/// Server faults in the middle of the work, on a real server: the postmaster killed during a large append,
/// a server that accepts the connection and never answers. Each is "server away" (the case in which a
/// run keeps its record in `history-pending.sqlite`), one line, and leaves no half-written run.
final class PostgresFaultTests: XCTestCase {
    /// SIGKILL of the postmaster while a record of 100,000 executions is being written: the append fails
    /// as "server away", and after crash recovery the database holds the run whole or not at all.
    func testPostmasterKilledDuringAnAppendLeavesNoHalfWrittenRun() throws {
        let cluster = try PostgresCluster()
        defer { cluster.stop() }
        let url = try cluster.createDatabase()
        // Used from the writing thread only until it signals (then closed here).
        nonisolated(unsafe) let store = try HistoryStore(url: url, mode: .write)
        var record = HistoryScenarios.record(0)
        record.executions = (0..<100_000).map { HistoryExecution(test: "Big.test\($0)()", outcome: $0 % 97 == 0 ? "failed" : "passed", duration: 0.01) }
        let big = record
        let postmaster = try cluster.postmasterPID()
        // The backends, to end by id after the kill (an orphaned backend would keep the old shared memory).
        let backends = { () -> [pid_t] in
            let children = (try? String(contentsOfFile: "/proc/\(postmaster)/task/\(postmaster)/children", encoding: .utf8)) ?? ""
            return children.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<Bool, Error>?
        let started = Date()
        Thread.detachNewThread {
            outcome = Result { try store.append(big) }
            done.signal()
        }
        // Mid-append: the rows go one statement each, so 100,000 of them take seconds.
        Thread.sleep(forTimeInterval: 1)
        let orphans = backends()
        XCTAssertEqual(kill(postmaster, SIGKILL), 0)
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the append returns after the kill")
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
        for pid in orphans { kill(pid, SIGKILL) }
        switch outcome {
        case .success?: XCTFail("the append finished before the kill: make the record larger")
        case let .failure(error)?:
            guard let error = error as? HistoryError else { return XCTFail("\(error)") }
            XCTAssertTrue(error.serverAway, "\(error)")
            XCTAssertFalse(error.localizedDescription.contains("\n"), error.localizedDescription)
        case nil: XCTFail("no outcome")
        }
        try? store.close()
        Thread.sleep(forTimeInterval: 0.5)
        try cluster.restartAfterCrash()
        XCTAssertEqual(try HistoryTestDB.count(url, "SELECT count(*) FROM testscope.run"), 0, "no half-written run")
        XCTAssertEqual(try HistoryTestDB.count(url, "SELECT count(*) FROM testscope.execution"), 0)
        // The same record sent again (as the kept file would be) is stored whole.
        let again = try HistoryStore(url: url, mode: .write)
        XCTAssertTrue(try again.append(record))
        try again.close()
        XCTAssertEqual(try HistoryTestDB.count(url, "SELECT count(*) FROM testscope.execution"), 100_000)
    }

    /// A server that accepts the connection and never answers (a local listener that does not even accept):
    /// "server away" in one line after the documented connect timeout (10 s), the password not in it.
    func testAServerThatNeverAnswersTimesOutInOneLine() throws {
        let (listener, port) = try PostgresCluster.localSocket(listening: true)
        defer { close(listener) }
        // The kernel completes the handshake (the backlog); nobody reads the startup packet.
        let url = URL(string: "postgresql://ci:hunter2-secret@127.0.0.1:\(port)/hist")!
        let started = Date()
        // On a thread of its own: without a connect timeout libpq would wait forever, and the test must fail, not hang
        // (closing the listener at the end lets such a thread go).
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<HistoryStore, Error>?
        Thread.detachNewThread {
            outcome = Result { try HistoryStore(url: url, mode: .write) }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + .seconds(PostgresHistory.connectTimeout + 5)), .success, "no answer within the connect timeout")
        guard case let .failure(error)? = outcome else { return XCTFail("connected to a server that never answers: \(String(describing: outcome))") }
        guard let error = error as? HistoryError, case .unreachable = error else { return XCTFail("\(error)") }
        XCTAssertTrue(error.serverAway)
        let line = error.localizedDescription
        XCTAssertFalse(line.contains("\n") || line.contains("hunter2"), line)
        XCTAssertTrue(line.contains("timeout"), line)
        let waited = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(waited, Double(PostgresHistory.connectTimeout) - 1)
        XCTAssertLessThan(waited, Double(PostgresHistory.connectTimeout) + 5)
    }

    /// A server that stops answering once the connection is made (the postmaster and every backend SIGSTOPped,
    /// so its own `statement_timeout` cannot fire): the statement gives up after the client's bound
    /// (`answerTimeout`) as "server away", in one line, and the store is closed. Bounded: the test waits
    /// at most the bound and 10 s more, and the processes are continued before the server is removed.
    func testAServerThatStopsAnsweringMidStatementTimesOut() throws {
        let cluster = try PostgresCluster()
        defer { cluster.stop() }
        let url = try cluster.createDatabase()
        nonisolated(unsafe) let store = try HistoryStore(url: URL(string: url.absoluteString.replacingOccurrences(of: "@/", with: ":hunter2-secret@/"))!,
                                                         mode: .write, busyTimeout: 1)
        let stopped = try cluster.processes()
        XCTAssertGreaterThan(stopped.count, 1, "the postmaster and its backends")
        defer { for pid in stopped { kill(pid, SIGCONT) } }
        for pid in stopped { XCTAssertEqual(kill(pid, SIGSTOP), 0) }
        let bound = PostgresHistory.answerTimeout(busyTimeout: 1)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<Bool, Error>?
        let started = Date()
        Thread.detachNewThread {
            outcome = Result { try store.append(HistoryScenarios.record(0)) }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + bound + 10), .success, "no answer within the client's bound (\(bound) s)")
        let waited = Date().timeIntervalSince(started)
        guard case let .failure(error)? = outcome else { return XCTFail("appended to a stopped server: \(String(describing: outcome))") }
        guard let error = error as? HistoryError, case .unreachable = error else { return XCTFail("\(error)") }
        XCTAssertTrue(error.serverAway)
        let line = error.localizedDescription
        XCTAssertFalse(line.contains("\n") || line.contains("hunter2"), line)
        XCTAssertTrue(line.contains("did not answer within \(Int(bound)) s"), line)
        XCTAssertGreaterThanOrEqual(waited, bound - 1)
        XCTAssertLessThan(waited, bound + 5)
        XCTAssertThrowsError(try store.append(HistoryScenarios.record(1)), "the connection was given up")
    }

    /// A full disk on the server (the database in a tablespace on a 12 MB tmpfs; root, as in CI): the append
    /// is "server away" (SQLSTATE 53100, "full") in one line, and no run is stored.
    func testAFullDiskOnTheServerStoresNoRun() throws {
        let cluster = try PostgresCluster()
        defer { cluster.stop() }
        let mountPoint = cluster.folder.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let owner = try XCTUnwrap(getpwnam(PostgresCluster.superuser)?.pointee.pw_uid, "no postgres user")
        let mount = try ProcessRunner.run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=12m,mode=0700,uid=\(owner)", "tmpfs", mountPoint.path])
        XCTAssertTrue(mount.succeeded, "mount -t tmpfs needs root: \(mount.stderrText)")
        defer { _ = try? ProcessRunner.run(URL(fileURLWithPath: "/bin/umount"), [mountPoint.path]) }
        try cluster.sql("CREATE TABLESPACE small LOCATION '\(mountPoint.path)'")
        try cluster.sql("CREATE DATABASE full_disk TABLESPACE small")
        let url = cluster.url(database: "full_disk")
        let store = try HistoryStore(url: url, mode: .write)
        var record = HistoryScenarios.record(0)
        record.executions = (0..<200_000).map { HistoryExecution(test: "Big.test\($0)()", outcome: "failed", duration: 0.01, message: String(repeating: "x", count: 60)) }
        XCTAssertThrowsError(try store.append(record)) { error in
            guard let error = error as? HistoryError, case .full = error else { return XCTFail("\(error)") }
            XCTAssertTrue(error.serverAway)
            XCTAssertFalse(error.localizedDescription.contains("\n"), error.localizedDescription)
        }
        try store.close()
        XCTAssertEqual(try HistoryTestDB.count(url, "SELECT count(*) FROM testscope.run"), 0, "no half-written run")
    }
}

import Foundation
import TestscopeExecution
import TestscopeHistory
import TestscopeTestSupport
import XCTest

/// `sslmode` on a real throwaway server listening on 127.0.0.1 (TLS with a certificate for `localhost` and
/// 127.0.0.1 signed by a CA made for the test): `verify-full` with that CA connects over TLS and appends;
/// another CA, or another host name, is one error line with status 65 and nothing written; `require`
/// against a server without TLS is one line. The password is never printed.
final class PostgresTLSTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws { folder = try TestscopeProcess.temporaryDirectory("pg-tls") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    /// A kept run in `folder/out/history-pending.sqlite` (what `history push` sends).
    func keptRun() throws -> (output: URL, pending: URL) {
        let output = folder.appendingPathComponent("out")
        let pending = output.appendingPathComponent("history-pending.sqlite")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let store = try HistoryStore(url: pending, mode: .write)
        try store.append(HistoryRecord(run: HistoryRun(command: "run", startedAt: Date(timeIntervalSince1970: 1_700_000_000),
                                                       finishedAt: Date(timeIntervalSince1970: 1_700_000_060), exitStatus: 0),
                                       executions: [HistoryExecution(test: "Suite.test()", outcome: "passed", duration: 0.5)]))
        try store.close()
        return (output, pending)
    }

    func testVerifyFullWithTheServersCAConnectsOverTLSAndAppends() throws {
        let cluster = try PostgresCluster(listening: .tls)
        defer { cluster.stop() }
        let database = String(try cluster.createDatabase().path.dropFirst())
        let (output, pending) = try keptRun()
        let url = cluster.tcpURL(database: database, options: "sslmode=verify-full&sslrootcert=\(cluster.caCertificate.path)")
        let push = try TestscopeProcess.run(["history", "push", "--output", output.path, "--into", url.absoluteString])
        XCTAssertEqual(push.status, 0, push.stderr)
        XCTAssertEqual(push.stdout, "sent 1 run kept in \(pending.path) to \(url.absoluteString)\n")
        XCTAssertEqual(try cluster.value("SELECT count(*) FROM testscope.run", database: database), "1")
        // The connection is TLS (the server says so while the store is open), and 127.0.0.1 is in the certificate too.
        let store = try HistoryStore(url: cluster.tcpURL(database: database, host: "127.0.0.1",
                                                         options: "sslmode=verify-full&sslrootcert=\(cluster.caCertificate.path)"), mode: .read)
        XCTAssertEqual(try store.records().count, 1)
        XCTAssertEqual(try cluster.value("SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE s.ssl AND a.application_name = 'testscope'"), "1")
        try store.close()
        let show = try TestscopeProcess.run(["history", url.absoluteString])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.hasPrefix("History \(url.absoluteString): 1 run,"), show.stdout)
    }

    func testVerifyFullWithAnotherCAOrAnotherNameIsOneLineAndWritesNothing() throws {
        let cluster = try PostgresCluster(listening: .tls)
        defer { cluster.stop() }
        let database = String(try cluster.createDatabase().path.dropFirst())
        let (output, pending) = try keptRun()
        let other = folder.appendingPathComponent("other-ca.crt")
        try PostgresCluster.makeCA(other, key: folder.appendingPathComponent("other-ca.key"))
        let user = PostgresCluster.passwordUser, password = PostgresCluster.password
        let cases = [
            (cluster.tcpURL(database: database, user: user, password: password, options: "sslmode=verify-full&sslrootcert=\(other.path)"),
             "certificate verify failed"),
            (URL(string: "postgresql://\(user):\(password)@wrong.example:\(cluster.port)/\(database)?hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert=\(cluster.caCertificate.path)")!,
             "does not match host name \"wrong.example\""),
        ]
        for (url, reason) in cases {
            let push = try TestscopeProcess.run(["history", "push", "--output", output.path, "--into", url.absoluteString])
            XCTAssertEqual(push.status, 65, push.stderr)
            XCTAssertEqual(push.errorLines.count, 1, push.stderr)
            XCTAssertTrue(push.stderr.hasPrefix("testscope: error: history \(url.historyDisplay) cannot be reached ("), push.stderr)
            XCTAssertTrue(push.stderr.contains(reason), "\(reason) in: \(push.stderr)")
            XCTAssertFalse(push.stdout.contains(password) || push.stderr.contains(password), "no password printed")
            XCTAssertTrue(FileManager.default.fileExists(atPath: pending.path), "the kept run stays")
        }
        XCTAssertEqual(try cluster.value("SELECT count(*) FROM pg_namespace WHERE nspname = 'testscope'", database: database), "0", "nothing written")
    }

    func testRequireAgainstAServerWithoutTLSIsOneLine() throws {
        let cluster = try PostgresCluster(listening: .tcp)
        defer { cluster.stop() }
        let database = String(try cluster.createDatabase().path.dropFirst())
        let (output, pending) = try keptRun()
        let url = cluster.tcpURL(database: database, host: "127.0.0.1", options: "sslmode=require")
        let push = try TestscopeProcess.run(["history", "push", "--output", output.path, "--into", url.absoluteString])
        XCTAssertEqual(push.status, 65, push.stderr)
        XCTAssertEqual(push.errorLines.count, 1, push.stderr)
        XCTAssertTrue(push.stderr.contains("server does not support SSL, but SSL was required"), push.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: pending.path))
        // The same server without sslmode: plain TCP works (the failure above is TLS's, not the address's).
        let plain = try TestscopeProcess.run(["history", "push", "--output", output.path, "--into", cluster.tcpURL(database: database, host: "127.0.0.1").absoluteString])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(try cluster.value("SELECT count(*) FROM testscope.run", database: database), "1")
    }
}

import Foundation
import TestscopeExecution
import TestscopeTestSupport
import XCTest
@testable import TestscopeHistory

/// `HistoryScenarios` on SQLite files.
final class SQLiteBackendTests: XCTestCase {
    var folder: URL!
    var scenarios: HistoryScenarios {
        HistoryScenarios { [folder] in folder!.appendingPathComponent("h-\(UUID().uuidString).sqlite") }
    }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func testRoundTripWithInjectionValues() throws { _ = try scenarios.roundTrip() }
    func testMergeWithImpactMaps() throws { _ = try scenarios.mergeWithImpactMaps() }
    func testConcurrentWriters() throws {
        let load = HistoryScenarios.load(default: (16, 3, 50))
        _ = try scenarios.concurrentWriters(writers: load.writers, runs: load.runs, tests: load.tests, backend: "SQLite")
    }
}

/// `HistoryScenarios` on a real PostgreSQL server (a throwaway cluster, one database per store), compared
/// with SQLite's results; and what only a server has: credentials, another program's schema, a migration race.
final class PostgresBackendTests: XCTestCase {
    var cluster: PostgresCluster!
    var folder: URL!
    var scenarios: HistoryScenarios { HistoryScenarios { [cluster] in try cluster!.createDatabase() } }

    override func setUpWithError() throws {
        // A server that cannot start fails every test here with its reason (no skip).
        cluster = try PostgresCluster.sharedCluster()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }
    override class func tearDown() { PostgresCluster.stopShared() }

    func sqlite() -> HistoryScenarios { HistoryScenarios { [folder] in folder!.appendingPathComponent("h-\(UUID().uuidString).sqlite") } }

    /// The same records and the same analysis (the text of `testscope history`) as SQLite.
    func testRoundTripGivesTheSameAnalysisAsSQLite() throws {
        let postgres = try scenarios.roundTrip(), file = try sqlite().roundTrip()
        XCTAssertEqual(postgres.records, file.records)
        XCTAssertEqual(postgres.text, file.text)
        XCTAssertTrue(postgres.text.contains("flaky"), postgres.text)
    }

    func testMergeWithImpactMapsAsSQLite() throws {
        XCTAssertEqual(try scenarios.mergeWithImpactMaps(), try sqlite().mergeWithImpactMaps())
    }

    /// 16 writers at once on a new database (they also race to create the schema): every run stored once.
    func testConcurrentWriters() throws {
        let load = HistoryScenarios.load(default: (16, 4, 200))
        let records = try scenarios.concurrentWriters(writers: load.writers, runs: load.runs, tests: load.tests, backend: "PostgreSQL")
        XCTAssertEqual(records.count, load.writers * load.runs)
    }

    /// The injection value as a test name and a branch name is stored as data: the tables are all there.
    func testInjectionValueLeavesTheTablesAlone() throws {
        let url = try cluster.createDatabase()
        let store = try HistoryStore(url: url, mode: .write)
        try store.append(HistoryScenarios.record(3))
        try store.close()
        XCTAssertEqual(try HistoryTestDB.count(url, "SELECT count(*) FROM testscope.run WHERE branch = '''); DROP TABLE runs; --'"), 1)
        XCTAssertEqual(try HistoryTestDB.count(url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'testscope'"), 8)
    }

    /// A sheet of SQLite files moved into PostgreSQL with `history merge`: the same runs.
    func testMergeFromSQLiteIntoPostgres() throws {
        let file = folder.appendingPathComponent("local.sqlite")
        let local = try HistoryStore(url: file, mode: .write)
        for i in 0..<4 { try local.append(HistoryScenarios.record(i)) }
        try local.close()
        let url = try cluster.createDatabase()
        XCTAssertEqual(try HistoryStore.merge([file], into: url).added, 4)
        XCTAssertEqual(try HistoryStore(url: url, mode: .read).records(), try HistoryStore(url: file, mode: .read).records())
    }

    /// A wrong password: one line naming the server without the password.
    func testWrongPasswordIsOneLineWithoutThePassword() throws {
        let database = try cluster.createDatabase().path.dropFirst()
        let url = cluster.url(database: String(database), user: PostgresCluster.passwordUser, password: "wrong-pw-123")
        XCTAssertThrowsError(try HistoryStore(url: url, mode: .write)) { error in
            guard case let .unreachable(location, _)? = error as? HistoryError else { return XCTFail("\(error)") }
            XCTAssertEqual(location, "postgresql://\(PostgresCluster.passwordUser):***@/\(database)?host=\(cluster.folder.path)")
            let line = error.localizedDescription
            XCTAssertFalse(line.contains("wrong-pw-123"), line)
            XCTAssertFalse(line.contains("\n"), line)
            XCTAssertTrue(line.contains("password authentication failed"), line)
        }
        // The right one works (the role may connect; it has no rights on the database's schema yet).
        let right = cluster.url(database: String(database), user: PostgresCluster.passwordUser, password: PostgresCluster.password)
        XCTAssertNoThrow(try HistoryTestDB.connect(right).query("SELECT 1"))
    }

    /// A schema `testscope` of another program is refused untouched; a newer version is refused on read and write.
    func testForeignAndNewerSchemasAreRefused() throws {
        let foreign = try cluster.createDatabase()
        try HistoryTestDB.connect(foreign).query("CREATE SCHEMA testscope")
        try HistoryTestDB.connect(foreign).query("CREATE TABLE testscope.run(x int)")
        XCTAssertThrowsError(try HistoryStore(url: foreign, mode: .write)) { XCTAssertEqual($0 as? HistoryError, .foreignSchema(location: foreign.historyDisplay)) }
        XCTAssertEqual(try HistoryTestDB.count(foreign, "SELECT count(*) FROM pg_tables WHERE schemaname = 'testscope'"), 1)

        let newer = try cluster.createDatabase()
        try HistoryStore(url: newer, mode: .write).append(HistoryScenarios.record(0))
        try HistoryTestDB.connect(newer).query("UPDATE testscope.schema_version SET version = 99")
        for mode in [HistoryStore.Mode.write, .read] {
            XCTAssertThrowsError(try HistoryStore(url: newer, mode: mode)) {
                XCTAssertEqual($0 as? HistoryError, .newerSchema(path: newer.historyDisplay, version: 99, supported: PostgresSchema.currentVersion))
            }
        }
        XCTAssertEqual(try HistoryTestDB.count(newer, "SELECT count(*) FROM testscope.run"), 1)
    }

    /// The server stopped under an open store (an immediate shutdown: the postmaster and its backends gone):
    /// the append fails as "server away" — the case in which a run keeps its record locally — in one line.
    func testServerStoppedUnderAnOpenStoreIsServerAway() throws {
        let own = try PostgresCluster()
        defer { own.stop() }
        let store = try HistoryStore(url: try own.createDatabase(), mode: .write)
        XCTAssertTrue(try store.append(HistoryScenarios.record(0)))
        own.stop()
        XCTAssertThrowsError(try store.append(HistoryScenarios.record(1))) { error in
            guard let error = error as? HistoryError, case .unreachable = error else { return XCTFail("\(error)") }
            XCTAssertTrue(error.serverAway)
            XCTAssertFalse(error.localizedDescription.contains("\n"), error.localizedDescription)
        }
    }

    /// Reading a database Testscope never wrote: one clear error, nothing created.
    func testReadingAnEmptyDatabaseCreatesNothing() throws {
        let url = try cluster.createDatabase()
        XCTAssertThrowsError(try HistoryStore(url: url, mode: .read)) {
            XCTAssertEqual($0 as? HistoryError, .unreadable(path: url.historyDisplay, detail: "an empty history: record a run into it with --history first"))
        }
        XCTAssertEqual(try HistoryTestDB.count(url, "SELECT count(*) FROM pg_namespace WHERE nspname = 'testscope'"), 0)
    }
}

/// Naming a PostgreSQL history without its password, and the line for a machine without libpq.
final class HistoryLocationTests: XCTestCase {
    func testRedaction() {
        XCTAssertEqual(HistoryLocation.redacted("postgresql://ci:p%40ss:w@db.example:5432/hist?sslmode=verify-full"),
                       "postgresql://ci:***@db.example:5432/hist?sslmode=verify-full")
        XCTAssertEqual(HistoryLocation.redacted("postgres://ci@db/hist?password=x&sslmode=require"), "postgres://ci@db/hist?password=***&sslmode=require")
        XCTAssertEqual(HistoryLocation.redacted("postgresql:///hist?host=/tmp"), "postgresql:///hist?host=/tmp")
        XCTAssertEqual(URL(string: "postgresql://u:pw@h/db")!.historyDisplay, "postgresql://u:***@h/db")
        XCTAssertEqual(URL(fileURLWithPath: "/tmp/a:b@c.sqlite").historyDisplay, "/tmp/a:b@c.sqlite")
    }

    func testMissingLibpqIsOneLine() {
        XCTAssertThrowsError(try LibPQ.load(from: ["/nonexistent/libpq.so.5"]))
        XCTAssertEqual(HistoryError.noLibpq(location: "postgresql://u:***@h/db").localizedDescription,
                       "--history postgresql://u:***@h/db needs libpq (Debian/Ubuntu: apt-get install libpq5; macOS: brew install libpq)")
    }
}

/// Direct SQL for the tests' set-up and checks (through the same libpq client as the store).
enum HistoryTestDB {
    static func connect(_ url: URL) throws -> PostgresConnection {
        guard let pq = LibPQ.shared else { throw ClusterError("libpq could not be loaded (\(LibPQ.defaultPaths()))") }
        return try PostgresConnection(pq, conninfo: url.absoluteString, defaults: [])
    }

    static func count(_ url: URL, _ sql: String) throws -> Int {
        Int(try connect(url).query(sql).first?.first.flatMap { $0 } ?? "") ?? -1
    }
}

/// docs/history.md's least privileges on the real server: the CI role appends and reads, and cannot drop.
final class PostgresPrivilegeTests: XCTestCase {
    override class func tearDown() { PostgresCluster.stopShared() }

    func testTheDocumentedGrantsAppendAndReadButCannotDrop() throws {
        let cluster = try PostgresCluster.sharedCluster()
        let owner = try cluster.createDatabase()
        let database = String(owner.path.dropFirst())
        // The owner's first write creates the tables; then the grants of docs/history.md.
        try HistoryStore(url: owner, mode: .write).append(HistoryScenarios.record(0))
        let role = PostgresCluster.passwordUser
        for grant in ["GRANT USAGE ON SCHEMA testscope TO \(role)", "GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA testscope TO \(role)",
                      "GRANT UPDATE ON testscope.impact_map, testscope.impact_coverage TO \(role)",
                      "GRANT USAGE ON ALL SEQUENCES IN SCHEMA testscope TO \(role)"] {
            try cluster.sql(grant, database: database)
        }
        let ci = cluster.url(database: database, user: role, password: PostgresCluster.password)
        let store = try HistoryStore(url: ci, mode: .write)
        XCTAssertTrue(try store.append(HistoryScenarios.record(1)))
        XCTAssertFalse(try store.append(HistoryScenarios.record(1)))
        let map = HistoryImpactMap(commit: "c0", tree: nil, dirty: false, environment: "{}", map: [1, 2], mapSize: 2)
        try store.saveImpactMap(map, runUUID: HistoryScenarios.record(1).run.uuid)
        try store.saveImpactMap(map, runUUID: HistoryScenarios.record(1).run.uuid)
        XCTAssertEqual(try store.records().count, 2)
        try store.close()
        for statement in ["DROP TABLE testscope.run", "DELETE FROM testscope.run", "TRUNCATE testscope.execution"] {
            XCTAssertThrowsError(try HistoryTestDB.connect(ci).query(statement), statement) {
                XCTAssertEqual(($0 as? PostgresFailure)?.sqlState, "42501", "\($0)")
            }
        }
        XCTAssertEqual(try HistoryTestDB.count(owner, "SELECT count(*) FROM testscope.run"), 2)

        // A read-only role refuses the write: one line, and a run would keep its record locally.
        try cluster.sql("REVOKE INSERT ON ALL TABLES IN SCHEMA testscope FROM \(role)", database: database)
        XCTAssertThrowsError(try HistoryStore(url: ci, mode: .write).append(HistoryScenarios.record(2))) { error in
            guard let error = error as? HistoryError else { return XCTFail("\(error)") }
            XCTAssertTrue(error.serverAway)
            XCTAssertTrue(error.localizedDescription.contains("permission denied"), error.localizedDescription)
        }
        XCTAssertEqual(try HistoryTestDB.count(owner, "SELECT count(*) FROM testscope.run"), 2)
    }
}

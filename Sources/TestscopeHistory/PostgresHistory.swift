import Foundation

/// The PostgreSQL backend of `HistoryStore` (`--history postgresql://…`): the history's tables in the
/// database's schema `testscope`, created or migrated under an advisory lock, one transaction per record.
///
/// Safety: a `testscope` schema with tables but no `schema_version` is another program's and is refused;
/// a newer version is refused before anything is written; a run's uuid is UNIQUE, so a run sent twice
/// (a retried job, two merges) is stored once; a statement waits at most `busyTimeout` on the server (`statement_timeout`)
/// and `answerTimeout` on the client.
final class PostgresHistory: HistoryBackend {
    let url: URL
    let mode: HistoryStore.Mode
    let busyTimeout: TimeInterval
    /// The URL with its password hidden: what every message says.
    let location: String
    private var connection: PostgresConnection?

    /// Seconds libpq waits for the server to answer a connection, unless the URL sets `connect_timeout`.
    static let connectTimeout = 10
    /// The server's `statement_timeout` in seconds: `busyTimeout`, at least 1 s (PostgreSQL's 0 is no limit at all).
    static func statementTimeout(busyTimeout: TimeInterval) -> TimeInterval { max(1, min(busyTimeout, 2_000_000)) }
    /// How long the client waits for a statement's answer before it gives the connection up: the server's
    /// limit and `connectTimeout` more (the server ends a slow statement itself first; this is for a server
    /// that stopped answering at all: stopped, frozen, or cut off by the network).
    static func answerTimeout(busyTimeout: TimeInterval) -> TimeInterval { statementTimeout(busyTimeout: busyTimeout) + TimeInterval(connectTimeout) }
    /// The key of the advisory lock a migration holds ("TsHi", as SQLite's application id).
    static let migrationLock = "1416841321"

    init(url: URL, mode: HistoryStore.Mode, busyTimeout: TimeInterval) throws {
        self.url = url
        self.mode = mode
        self.busyTimeout = busyTimeout
        location = url.historyDisplay
        guard let pq = LibPQ.shared else { throw HistoryError.noLibpq(location: location) }
        do {
            let db = try PostgresConnection(pq, conninfo: url.absoluteString,
                                            defaults: [("connect_timeout", String(Self.connectTimeout)), ("fallback_application_name", "testscope")],
                                            answerTimeout: Self.answerTimeout(busyTimeout: busyTimeout))
            connection = db
            // Our schema first; notices ("already exists, skipping") are not the user's business. At least
            // 1 s per statement: TESTSCOPE_HISTORY_TIMEOUT=0 (SQLite: do not wait for a lock) would otherwise
            // be PostgreSQL's 0, no limit at all.
            try db.query("""
                SELECT set_config('search_path', 'testscope', false), set_config('client_min_messages', 'warning', false),
                       set_config('statement_timeout', $1, false)
                """, [String(Int(Self.statementTimeout(busyTimeout: busyTimeout) * 1000))])
            try prepareSchema(db)
        } catch {
            connection?.close()
            connection = nil
            throw translate(error)
        }
    }

    deinit { try? close() }

    func close() throws {
        connection?.close()
        connection = nil
    }

    func db() throws -> PostgresConnection {
        guard let connection else { throw HistoryError.unreadable(path: location, detail: "already closed") }
        return connection
    }

    /// The stored version; nil for none yet (no `testscope` schema, or an empty one a DBA made for us).
    private func storedVersion(_ db: PostgresConnection) throws -> Int? {
        let row = try db.query("""
            SELECT to_regclass('testscope.schema_version') IS NOT NULL,
                   (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'testscope')
            """)[0]
        if row[0] == "t" { return try db.query("SELECT max(version) FROM schema_version")[0][0].flatMap { Int($0) } ?? 0 }
        if row[1] != "0" { throw HistoryError.foreignSchema(location: location) }
        return nil
    }

    /// Checks the identity and version; creates or migrates the tables in write mode, under the lock.
    private func prepareSchema(_ db: PostgresConnection) throws {
        func check(_ version: Int?) throws -> Bool {
            if let version, version > PostgresSchema.currentVersion {
                throw HistoryError.newerSchema(path: location, version: version, supported: PostgresSchema.currentVersion)
            }
            return (version ?? 0) < PostgresSchema.currentVersion
        }
        let version = try storedVersion(db)
        guard try check(version) else { return }
        guard mode == .write else {
            if version == nil { throw HistoryError.unreadable(path: location, detail: "an empty history: record a run into it with --history first") }
            return
        }
        try db.transaction {
            // Two Testscopes meeting a new (or older) database: the second waits here, then finds it done.
            try db.query("SELECT pg_advisory_xact_lock($1)", [Self.migrationLock])
            let version = try storedVersion(db)
            guard try check(version) else { return }
            for statement in PostgresSchema.migrations[(version ?? 0)...].joined() { try db.query(statement) }
            try db.query("DELETE FROM schema_version")
            try db.query("INSERT INTO schema_version(version) VALUES ($1)", [String(PostgresSchema.currentVersion)])
        }
    }

    func append(_ record: HistoryRecord) throws -> Bool {
        let db = try db()
        do {
            return try db.transaction { try PostgresRows.insert(record, into: db) }
        } catch {
            throw translate(error)
        }
    }

    func append(all records: [HistoryRecord], impactMaps: [(runUUID: String, map: HistoryImpactMap)]) throws -> Int {
        let db = try db()
        do {
            return try db.transaction {
                let count = try records.reduce(0) { $0 + (try PostgresRows.insert($1, into: db) ? 1 : 0) }
                for (uuid, map) in impactMaps { _ = try PostgresRows.insertImpactMap(map, runUUID: uuid, replacing: false, into: db) }
                return count
            }
        } catch {
            throw translate(error)
        }
    }

    func records(since: Date?, branch: String?) throws -> [HistoryRecord] {
        do {
            let db = try db()
            return try db.transaction { try PostgresRows.load(from: db, since: since, branch: branch) }
        } catch {
            throw translate(error)
        }
    }

    /// A read-only transaction that sees one snapshot (its cursors too).
    func readSnapshot<T>(_ body: () throws -> T) throws -> T {
        do {
            let db = try db()
            return try db.transaction {
                try db.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                return try body()
            }
        } catch {
            throw translate(error)
        }
    }

    func runs(since: Date?, branch: String?) throws -> (ids: [Int64], records: [HistoryRecord]) {
        try PostgresRows.runs(from: try db(), since: since, branch: branch)
    }

    func executionsByTest(runs place: [Int64: Int], _ consume: (String, [HistoryTestRow]) -> Void) throws {
        try PostgresRows.executionsByTest(from: try db(), runs: place, consume)
    }

    func saveImpactMap(_ map: HistoryImpactMap, runUUID: String) throws {
        let db = try db()
        do {
            try db.transaction {
                guard try PostgresRows.insertImpactMap(map, runUUID: runUUID, replacing: true, into: db) else {
                    throw HistoryError.unreadable(path: location, detail: "no stored run \(runUUID) to attach the impact map to")
                }
            }
        } catch {
            throw translate(error)
        }
    }

    func impactMaps(commits: [String]) throws -> [HistoryImpactMap] {
        do { return try PostgresRows.impactMaps(commits: commits, from: try db()) } catch { throw translate(error) }
    }

    func impactCoverage(runUUID: String) throws -> HistoryImpactCoverage? {
        do {
            guard let row = try db().query("""
                SELECT c.size, c.coverage FROM impact_coverage c JOIN run r ON r.id = c.run_id WHERE r.uuid = $1
                """, [runUUID]).first else { return nil }
            return HistoryImpactCoverage(size: Int(row[0] ?? "") ?? 0, bytes: PostgresRows.bytes(row[1]))
        } catch {
            throw translate(error)
        }
    }

    func allImpactMaps() throws -> [(runUUID: String, map: HistoryImpactMap)] {
        do {
            var found = try PostgresRows.impactMaps(commits: nil, from: try db()).map { ($0.runUUID ?? "", $0) }
            for index in found.indices { found[index].1.coverage = try impactCoverage(runUUID: found[index].0) }
            return found
        } catch {
            throw translate(error)
        }
    }

    /// The server's and libpq's failures in Testscope's words (the location's password hidden; libpq's own
    /// messages never quote the password).
    func translate(_ error: Error) -> Error {
        guard let failure = error as? PostgresFailure else { return error }
        switch failure.sqlState {
        case "53100": return HistoryError.full(path: location, detail: failure.message)
        case "57014", "55P03", "40P01": return HistoryError.locked(path: location, seconds: busyTimeout)
        case _ where failure.isConnection: return HistoryError.unreachable(location: location, detail: failure.message)
        default: return HistoryError.unreadable(path: location, detail: failure.message)
        }
    }
}

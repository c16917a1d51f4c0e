import CSQLite
import Foundation

/// The SQLite backend of `HistoryStore` (`--history FILE.sqlite`): a history file opened, checked (SQLite? Testscope's? which version?),
/// migrated, appended to in one transaction per run, read back; closed with the WAL checkpointed
/// into the file, so the file alone is the history (no `-wal` to carry between CI runs).
///
/// Safety: a file that is not SQLite is refused from its first 16 bytes, before SQLite opens it; another
/// program's SQLite file (no Testscope `application_id` but tables) and a newer schema are refused
/// before anything is written; every write is one `BEGIN IMMEDIATE` transaction (a crash or a full disk
/// rolls it back; the runs already stored stay); concurrent writers wait up to `busyTimeout`.
final class SQLiteHistory: HistoryBackend {
    let url: URL
    let mode: HistoryStore.Mode
    let busyTimeout: TimeInterval
    private var connection: SQLiteConnection?

    init(url: URL, mode: HistoryStore.Mode, busyTimeout: TimeInterval) throws {
        self.url = url
        self.mode = mode
        self.busyTimeout = busyTimeout
        let path = url.path
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
        if mode == .read, !exists { throw HistoryError.missing(path: path) }
        // Said as they are (SQLite's "cannot open" would read as a permission problem).
        if isFolder.boolValue { throw HistoryError.unreadable(path: path, detail: "a folder, not a file: pass a file path such as history.sqlite") }
        let folder = url.deletingLastPathComponent().path
        if !exists, !FileManager.default.fileExists(atPath: folder) {
            throw HistoryError.unreadable(path: path, detail: "its folder \(folder) does not exist: create it, or pass a path in an existing folder")
        }
        if exists { try Self.checkHeader(path) }
        if mode == .write {
            // Past RLIMIT_FSIZE, write(2) fails with EFBIG instead of the process dying of SIGXFSZ,
            // so a full file is SQLite's SQLITE_FULL: rolled back, reported in one line.
            signal(SIGXFSZ, SIG_IGN)
        }
        // Reading opens read-write when it may (nothing is written): then the last connection to close
        // removes the `-wal`/`-shm` files a read-only one would leave beside the file.
        let readOnly = mode == .read && !(FileManager.default.isWritableFile(atPath: path)
            && FileManager.default.isWritableFile(atPath: url.deletingLastPathComponent().path))
        let deadline = Date().addingTimeInterval(busyTimeout)
        var attempt = 0
        while true {
            do {
                let connection = try SQLiteConnection(path: path, create: mode == .write, readOnly: readOnly, busyTimeout: busyTimeout)
                self.connection = connection
                try prepareSchema(connection)
                return
            } catch let failure as SQLiteFailure where (failure.primary == SQLITE_BUSY || failure.primary == SQLITE_LOCKED) && Date() < deadline {
                // Processes creating one new history at once: switching the new file to WAL needs a lock
                // another's read holds, and SQLite fails one side at once instead of deadlocking (its busy
                // handler is not called then; seen in CI: "locked … (waited 30 s)" after 1.5 s). Opened
                // again after a pause, the file is in WAL and the tables exist or are made under the lock.
                connection?.close()
                connection = nil
                attempt += 1
                usleep(UInt32(min(200_000, 5_000 * attempt)))
            } catch {
                connection = nil
                throw translate(error)
            }
        }
    }

    deinit { try? close() }

    /// The file's first bytes are SQLite's magic, or it is empty (a new history).
    static func checkHeader(_ path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw HistoryError.unreadable(path: path, detail: "cannot be opened for reading") }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        if head.isEmpty { return }
        if head != Data("SQLite format 3\0".utf8) { throw HistoryError.notSQLite(path: path) }
    }

    /// Checks the identity and version; creates or migrates the tables in write mode.
    private func prepareSchema(_ db: SQLiteConnection) throws {
        // The three values from one snapshot: read one statement at a time, another process's creation
        // could commit in between and leave "tables but no application id", which is a foreign file.
        func inspect() throws -> (id: Int64, version: Int, tables: Int64) {
            try db.readTransaction {
                (try db.integer("PRAGMA application_id"), Int(try db.integer("PRAGMA user_version")),
                 try db.integer("SELECT count(*) FROM sqlite_master"))
            }
        }
        let path = url.path
        func check(_ state: (id: Int64, version: Int, tables: Int64)) throws -> Bool {
            if state.id == 0 && state.tables == 0 { return true }
            guard state.id == HistorySchema.applicationID else { throw HistoryError.foreign(path: path) }
            if state.version > HistorySchema.currentVersion {
                throw HistoryError.newerSchema(path: path, version: state.version, supported: HistorySchema.currentVersion)
            }
            return state.version < HistorySchema.currentVersion
        }
        let state = try inspect()
        let needsWork = try check(state)
        guard mode == .write else {
            // An older schema reads as it is (later versions add tables, whose readers check, or lay a table out
            // anew with the same columns, as schema 5 does).
            if needsWork && (state.id == 0 || state.tables == 0) {
                throw HistoryError.unreadable(path: path, detail: "an empty history: record a run into it with --history first")
            }
            return
        }
        try db.execute("PRAGMA foreign_keys = ON")
        // WAL: readers do not block the writer; the checkpoint on close folds it back into the file. Set
        // once and kept (switching back and forth rewrites the header: a failed or empty merge would
        // then change the file's bytes).
        if try db.prepare("PRAGMA journal_mode").text0() != "wal" { _ = try db.integer("PRAGMA journal_mode = WAL") }
        try db.transaction {
            // Again inside the write lock: another process may have created the tables meanwhile.
            let state = try inspect()
            guard try check(state) else { return }
            let from = state.tables == 0 ? 0 : state.version
            for migration in HistorySchema.migrations[from...] { try db.execute(migration) }
            try db.execute("PRAGMA application_id = \(HistorySchema.applicationID); PRAGMA user_version = \(HistorySchema.currentVersion)")
        }
    }

    func db() throws -> SQLiteConnection {
        guard let connection else { throw HistoryError.unreadable(path: url.path, detail: "already closed") }
        return connection
    }

    /// Stores `record` in one transaction; false when a run with its uuid is already stored (merge is idempotent).
    @discardableResult
    func append(_ record: HistoryRecord) throws -> Bool {
        let db = try db()
        do {
            return try db.transaction { try HistoryRows.insert(record, into: db) }
        } catch {
            throw translate(error)
        }
    }

    /// Every stored run (oldest first) with its rows, optionally since a date and on one branch.
    func records(since: Date?, branch: String?) throws -> [HistoryRecord] {
        do {
            return try HistoryRows.load(from: try db(), since: since, branch: branch)
        } catch {
            throw translate(error)
        }
    }

    /// A read transaction: one snapshot of the file.
    func readSnapshot<T>(_ body: () throws -> T) throws -> T {
        do {
            return try db().readTransaction(body)
        } catch {
            throw translate(error)
        }
    }

    func runs(since: Date?, branch: String?) throws -> (ids: [Int64], records: [HistoryRecord]) {
        try HistoryRows.runs(from: try db(), since: since, branch: branch)
    }

    func executionsByTest(runs place: [Int64: Int], _ consume: (String, [HistoryTestRow]) -> Void) throws {
        try HistoryRows.executionsByTest(from: try db(), runs: place, consume)
    }

    /// Checkpoints the WAL into the file (TRUNCATE: the `-wal` file is emptied) and closes.
    func close() throws {
        guard let connection else { return }
        defer { connection.close(); self.connection = nil }
        if mode == .write {
            // The WAL folded into the file, so the file is the whole history (no `-wal` to carry between
            // CI runs; the last connection to close also removes the empty `-wal` and the `-shm`). Fails
            // (ignored) while another process uses the file: the last one to close does it.
            sqlite3_busy_timeout(connection.handle, 0)
            try? connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// Stores the records not yet there (by uuid) and the impact maps of the stored runs not yet there, in
    /// one transaction (a full disk or a crash adds none of them); how many records were added.
    func append(all records: [HistoryRecord], impactMaps: [(runUUID: String, map: HistoryImpactMap)]) throws -> Int {
        let db = try db()
        do {
            return try db.transaction {
                let count = try records.reduce(0) { $0 + (try HistoryRows.insert($1, into: db) ? 1 : 0) }
                for (uuid, map) in impactMaps { try Self.insertImpactMap(map, runUUID: uuid, replacing: false, into: db) }
                return count
            }
        } catch {
            throw translate(error)
        }
    }

    /// SQLite's failures in Testscope's words.
    func translate(_ error: Error) -> Error {
        guard let failure = error as? SQLiteFailure else { return error }
        let path = url.path
        let errno = failure.systemErrno
        switch failure.primary {
        case SQLITE_NOTADB: return HistoryError.notSQLite(path: path)
        case SQLITE_BUSY, SQLITE_LOCKED: return HistoryError.locked(path: path, seconds: busyTimeout)
        case SQLITE_FULL: return HistoryError.full(path: path, detail: failure.message)
        case SQLITE_IOERR where errno == ENOSPC || errno == EFBIG: return HistoryError.full(path: path, detail: String(cString: strerror(errno)))
        // A failed write(2): SQLite keeps the errno of the WAL's file to itself (measured: errno 0 past
        // RLIMIT_FSIZE), and space or the size limit is what runs out in practice.
        case SQLITE_IOERR where failure.code == SQLITE_IOERR | (3 << 8):  // SQLITE_IOERR_WRITE (a macro Swift does not import)
            return HistoryError.full(path: path, detail: "a write failed")
        case SQLITE_READONLY: return HistoryError.readOnly(path: path)
        case SQLITE_CANTOPEN where mode == .write: return HistoryError.readOnly(path: path)
        case SQLITE_CORRUPT: return HistoryError.unreadable(path: path, detail: "the database is damaged: \(failure.message)")
        default: return HistoryError.unreadable(path: path, detail: failure.message)
        }
    }
}

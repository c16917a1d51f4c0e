import CSQLite
import Foundation

/// An SQLite result code that was not success, with SQLite's message; `HistoryStore` turns it into a `HistoryError`.
struct SQLiteFailure: Error {
    var code: Int32
    var message: String
    /// The OS error behind an I/O error (`EFBIG` past RLIMIT_FSIZE, `ENOSPC`), read when it happened.
    var systemErrno: Int32 = 0
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_FULL`, …) without the extended bits.
    var primary: Int32 { code & 0xFF }
}

/// One connection to the system SQLite: the thin wrapper the history needs (open, execute, prepared
/// statements, transactions) — system SQLite rather than GRDB because it adds no Swift package to a
/// 2-core build (GRDB 7.10 is ~40k lines of Swift) and the history uses a handful of SQL statements.
/// Not shared between threads: one store, one thread.
final class SQLiteConnection {
    private(set) var handle: OpaquePointer?

    /// Opens `path` (created when `create`), extended result codes on, waiting up to `busyTimeout` for other writers.
    init(path: String, create: Bool, readOnly: Bool = false, busyTimeout: TimeInterval) throws {
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)) | SQLITE_OPEN_NOMUTEX
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, flags, nil)
        handle = db
        guard code == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db)
            handle = nil
            throw SQLiteFailure(code: code, message: message)
        }
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Int32(max(0, min(busyTimeout * 1000, Double(Int32.max)))))
    }

    deinit { close() }

    /// Closes the connection (statements must be finalized first; `Statement` does it on deinit).
    func close() {
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    var lastError: SQLiteFailure {
        SQLiteFailure(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), systemErrno: sqlite3_system_errno(handle))
    }

    /// Runs SQL without results (one or several statements).
    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw lastError }
    }

    func prepare(_ sql: String) throws -> Statement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw lastError }
        return Statement(statement, connection: self)
    }

    /// The first column of the first row of `sql` as an integer (PRAGMAs, counts).
    func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        return try statement.step() ? statement.int(0) : 0
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction (the write lock taken up front, so a second
    /// writer waits in the busy handler instead of failing at its first write); rolled back on error.
    func transaction<T>(_ body: () throws -> T) throws -> T { try inTransaction("BEGIN IMMEDIATE", body) }

    /// Runs `body` in one read transaction (`BEGIN`): its statements see one snapshot of the file.
    /// Inside a transaction already, that one is the snapshot.
    func readTransaction<T>(_ body: () throws -> T) throws -> T {
        guard sqlite3_get_autocommit(handle) != 0 else { return try body() }
        return try inTransaction("BEGIN", body)
    }

    private func inTransaction<T>(_ begin: String, _ body: () throws -> T) throws -> T {
        try execute(begin)
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    var changes: Int { Int(sqlite3_changes(handle)) }
}

/// A prepared statement: bind by position (1-based), step, read columns (0-based).
final class Statement {
    private let statement: OpaquePointer
    private let connection: SQLiteConnection

    init(_ statement: OpaquePointer, connection: SQLiteConnection) {
        self.statement = statement
        self.connection = connection
    }

    deinit { sqlite3_finalize(statement) }

    /// SQLite copies the text (`SQLITE_TRANSIENT`), so Swift's temporary buffers may go away.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    @discardableResult
    func bind(_ values: [SQLValue?]) -> Statement {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case nil: sqlite3_bind_null(statement, position)
            case let .int(v)?: sqlite3_bind_int64(statement, position, v)
            case let .double(v)?: sqlite3_bind_double(statement, position, v)
            case let .text(v)?: sqlite3_bind_text(statement, position, v, -1, Self.transient)
            case let .blob(v)?: _ = v.withUnsafeBytes { sqlite3_bind_blob(statement, position, $0.baseAddress, Int32($0.count), Self.transient) }
            }
        }
        return self
    }

    /// True while there is a row.
    func step() throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.lastError
        }
    }

    /// Runs a statement without results with `values` bound.
    func run(_ values: [SQLValue?]) throws {
        bind(values)
        while try step() {}
    }

    func int(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
    func double(_ column: Int32) -> Double? { isNull(column) ? nil : sqlite3_column_double(statement, column) }
    func optionalInt(_ column: Int32) -> Int64? { isNull(column) ? nil : int(column) }
    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: pointer)
    }
    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
    /// The first column of the first row as text.
    func text0() throws -> String? { try step() ? text(0) : nil }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
}

/// A value bound to a statement.
enum SQLValue {
    case int(Int64)
    case double(Double)
    case text(String)
    case blob([UInt8])
}

extension Optional where Wrapped == String {
    var sql: SQLValue? { map(SQLValue.text) }
}

extension Optional where Wrapped == Double {
    var sql: SQLValue? { map(SQLValue.double) }
}

extension Int {
    var sql: SQLValue? { .int(Int64(self)) }
}

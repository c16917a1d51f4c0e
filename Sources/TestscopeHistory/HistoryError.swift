import Foundation
import TestscopeExecution

/// Why a history file cannot be used: one line each (what, which file, what to do); all bad input (65),
/// and in every case the file is left as it was.
package enum HistoryError: LocalizedError, Equatable {
    case notSQLite(path: String)
    case foreign(path: String)
    case newerSchema(path: String, version: Int, supported: Int)
    case missing(path: String)
    case locked(path: String, seconds: Double)
    case full(path: String, detail: String)
    case unreadable(path: String, detail: String)
    case readOnly(path: String)
    /// A `postgresql://` history on a machine without libpq.
    case noLibpq(location: String)
    /// A PostgreSQL database whose schema `testscope` holds another program's tables.
    case foreignSchema(location: String)
    /// The PostgreSQL server could not be reached or refused the connection (a wrong password, no such database).
    case unreachable(location: String, detail: String)

    package var errorDescription: String? {
        switch self {
        case let .notSQLite(path):
            return "history \(path) is not an SQLite file; pass a Testscope history (.sqlite) or a path that does not exist yet (it is created)"
        case let .foreign(path):
            return "history \(path) is an SQLite database of another program (not a Testscope history); it was left untouched — pass another path"
        case let .newerSchema(path, version, supported):
            return "history \(path) has schema version \(version), written by a newer Testscope (this one knows up to \(supported)); use a newer testscope, or another file"
        case let .missing(path):
            return "history \(path) does not exist; record runs into it first with testscope run --history \(path)"
        case let .locked(path, seconds):
            return "history \(path) is locked by another process (waited \(String(format: "%.0f", seconds)) s); nothing was written — retry when it is done"
        case let .full(path, detail):
            return "history \(path) could not be written (\(detail): is the disk or the file size limit full?); nothing was written — free space and retry"
        case let .unreadable(path, detail):
            return "history \(path) cannot be used (\(detail)); it was left as it was"
        case let .readOnly(path):
            return "history \(path) cannot be written (read-only file or folder); nothing was written — pass a writable path"
        case let .noLibpq(location):
            return "--history \(location) needs libpq (Debian/Ubuntu: apt-get install libpq5; macOS: brew install libpq)"
        case let .foreignSchema(location):
            return "history \(location) has a schema testscope with another program's tables (not a Testscope history); it was left untouched — use another database, or drop that schema"
        case let .unreachable(location, detail):
            return "history \(location) cannot be reached (\(detail)); nothing was written — check the URL, the server and the credentials (PGPASSWORD, ~/.pgpass)"
        }
    }
}

extension HistoryError {
    /// The server could not be reached, timed out, ran out of space or refused the write: a run's record
    /// is kept locally instead (not for a wrong schema, another program's tables or a missing libpq).
    package var serverAway: Bool {
        switch self {
        case .unreachable, .locked, .full, .unreadable, .readOnly: return true
        case .notSQLite, .foreign, .foreignSchema, .newerSchema, .missing, .noLibpq: return false
        }
    }
}

extension HistoryError: ClassifiedError {
    package var errorClass: ErrorClass { .badInput }
}

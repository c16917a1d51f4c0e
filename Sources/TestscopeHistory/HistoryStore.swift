import Foundation

/// What a history backend does: the operations `run`, `flaky`, `merge`, `testscope history` and the impact
/// maps use. Two backends: an SQLite file (`SQLiteHistory`) and a PostgreSQL database (`PostgresHistory`).
protocol HistoryBackend: AnyObject {
    /// Stores `record` in one transaction; false when a run with its uuid is already stored.
    func append(_ record: HistoryRecord) throws -> Bool
    /// Stores the records not yet there and the impact maps of their runs, all in one transaction; how many records were added.
    func append(all records: [HistoryRecord], impactMaps: [(runUUID: String, map: HistoryImpactMap)]) throws -> Int
    /// Every stored run (oldest first) with its rows, optionally since a date and on one branch.
    func records(since: Date?, branch: String?) throws -> [HistoryRecord]
    /// Runs `body` on one snapshot of the history (a read-only transaction), its failures in Testscope's words.
    func readSnapshot<T>(_ body: () throws -> T) throws -> T
    /// The runs (oldest first) since a date and on one branch, with their findings but not their executions,
    /// and their ids (called inside `readSnapshot`).
    func runs(since: Date?, branch: String?) throws -> (ids: [Int64], records: [HistoryRecord])
    /// The executions of the runs in `place` (id → place among the selected runs), one test at a time, in
    /// test order (called inside `readSnapshot`).
    func executionsByTest(runs place: [Int64: Int], _ consume: (String, [HistoryTestRow]) -> Void) throws
    /// Stores `map` with the stored run `runUUID` (a second map for the run replaces the first).
    func saveImpactMap(_ map: HistoryImpactMap, runUUID: String) throws
    /// The maps recorded at any of `commits`, newest run first.
    func impactMaps(commits: [String]) throws -> [HistoryImpactMap]
    /// The per-test lines stored with the map of run `runUUID`, if any.
    func impactCoverage(runUUID: String) throws -> HistoryImpactCoverage?
    /// Every stored map with its run's uuid (what a merge copies).
    func allImpactMaps() throws -> [(runUUID: String, map: HistoryImpactMap)]
    func close() throws
}

/// The run history behind `--history`: an SQLite file, or a PostgreSQL database when the location is a
/// `postgresql://` (or `postgres://`) URL. Opened and checked (identity, schema version; migrated in
/// write mode), appended to in one transaction per run, read back, closed.
package final class HistoryStore {
    package enum Mode: Sendable { case read, write }

    /// How long a writer waits for another process's transaction (a run's append takes milliseconds;
    /// a merge of a large file one run at a time holds the lock no longer than one run's rows).
    package static let defaultBusyTimeout: TimeInterval = 30

    package let url: URL
    private let backend: any HistoryBackend

    package init(url: URL, mode: Mode, busyTimeout: TimeInterval = HistoryStore.defaultBusyTimeout) throws {
        self.url = url
        backend = url.isPostgresHistory
            ? try PostgresHistory(url: url, mode: mode, busyTimeout: busyTimeout)
            : try SQLiteHistory(url: url, mode: mode, busyTimeout: busyTimeout)
    }

    /// Stores `record` in one transaction; false when a run with its uuid is already stored (merge is idempotent).
    @discardableResult
    package func append(_ record: HistoryRecord) throws -> Bool { try backend.append(record) }

    /// Stores the records not yet there (by uuid) in one transaction: all or none; how many were added.
    @discardableResult
    package func append(all records: [HistoryRecord]) throws -> Int { try backend.append(all: records, impactMaps: []) }

    /// Every stored run (oldest first) with its rows, optionally since a date and on one branch.
    package func records(since: Date? = nil, branch: String? = nil) throws -> [HistoryRecord] { try backend.records(since: since, branch: branch) }

    /// What the history says of the runs since a date and on one branch, read one test at a time from one
    /// snapshot: memory holds the selected runs and one test's executions, never every row.
    package func analysis(since: Date? = nil, branch: String? = nil) throws -> HistoryAnalysis {
        try backend.readSnapshot {
            let (ids, records) = try backend.runs(since: since, branch: branch)
            let place = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
            return try HistoryAnalysis(runs: records) { consume in try backend.executionsByTest(runs: place, consume) }
        }
    }

    /// Stores `map` with the stored run `runUUID` (in one transaction; a second map for the run replaces the first).
    package func saveImpactMap(_ map: HistoryImpactMap, runUUID: String) throws { try backend.saveImpactMap(map, runUUID: runUUID) }

    /// The maps recorded at any of `commits`, newest run first; none in a file older than schema 2.
    package func impactMaps(commits: [String]) throws -> [HistoryImpactMap] { try backend.impactMaps(commits: commits) }

    /// The per-test lines stored with the map of run `runUUID`; nil when there are none.
    package func impactCoverage(runUUID: String) throws -> HistoryImpactCoverage? { try backend.impactCoverage(runUUID: runUUID) }

    func allImpactMaps() throws -> [(runUUID: String, map: HistoryImpactMap)] { try backend.allImpactMaps() }

    /// Ends the connection (SQLite: with the WAL checkpointed into the file).
    package func close() throws { try backend.close() }

    /// Stores every run of `sources` not yet in `target` (by uuid), with their impact maps, in one
    /// transaction (a full disk or a crash adds none of them); the counts added and already there.
    /// Any backend to any backend: `history merge a.sqlite --into postgresql://…` moves a file into PostgreSQL.
    package static func merge(_ sources: [URL], into target: URL, busyTimeout: TimeInterval = defaultBusyTimeout) throws -> (added: Int, present: Int) {
        // Every source is checked before the target is touched.
        var loaded: [HistoryRecord] = []
        var maps: [(runUUID: String, map: HistoryImpactMap)] = []
        for source in sources {
            let store = try HistoryStore(url: source, mode: .read, busyTimeout: busyTimeout)
            loaded += try store.records()
            maps += try store.allImpactMaps()
            try store.close()
        }
        let store = try HistoryStore(url: target, mode: .write, busyTimeout: busyTimeout)
        let added = try store.backend.append(all: loaded, impactMaps: maps)
        try store.close()
        return (added, loaded.count - added)
    }
}

extension URL {
    /// A PostgreSQL history (`postgresql://…` or `postgres://…`): libpq's URL, given to libpq as it is.
    package var isPostgresHistory: Bool { scheme == "postgresql" || scheme == "postgres" }

    /// How messages and pages name the history: a file's path, or the URL with its password hidden.
    package var historyDisplay: String { isPostgresHistory ? HistoryLocation.redacted(absoluteString) : path }
}

/// Naming a history without its secrets.
package enum HistoryLocation {
    /// `url` with the password of its user info and of a `password=` parameter replaced by `***`
    /// (`postgresql://user:***@host/db`). The user info ends at the last `@`: a stray `@` further on
    /// hides more than needed, never less.
    package static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        var text = url
        let rest = text[scheme.upperBound...]
        if let at = rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
            text.replaceSubrange(text.index(after: colon)..<at, with: "***")
        }
        // `?password=…&…`: up to the next `&` (or the end).
        var searchFrom = text.startIndex
        while let key = text.range(of: "password=", options: .caseInsensitive, range: searchFrom..<text.endIndex) {
            let end = text[key.upperBound...].firstIndex(of: "&") ?? text.endIndex
            text.replaceSubrange(key.upperBound..<end, with: "***")
            searchFrom = text.index(key.upperBound, offsetBy: 3)
        }
        return text
    }
}

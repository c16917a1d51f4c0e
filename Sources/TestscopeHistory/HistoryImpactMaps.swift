import Foundation

/// A stored test impact map (schema version 2's `impact_map`): where it was recorded, and its content
/// as TestscopeImpact encodes it (this module stores it, never reads it).
package struct HistoryImpactMap: Equatable, Sendable {
    package var commit: String
    package var tree: String?
    package var dirty: Bool
    /// The environment's fingerprint, as the owner encodes it.
    package var environment: String
    /// The map as the owner stored it: compressed, `mapSize` bytes inflated; or, with `mapSize` nil, its
    /// JSON itself (a row written before schema 4).
    package var map: [UInt8]
    package var mapSize: Int?
    /// The recording run's per-test lines as the owner compressed them (schema 3's `impact_coverage`):
    /// stored with the map; read apart (`impactCoverage`), only for the map a selection chose.
    package var coverage: HistoryImpactCoverage?
    /// The run that recorded it (set when read).
    package var runUUID: String?

    package init(commit: String, tree: String?, dirty: Bool, environment: String, map: [UInt8], mapSize: Int?,
                 coverage: HistoryImpactCoverage? = nil) {
        self.commit = commit
        self.tree = tree
        self.dirty = dirty
        self.environment = environment
        self.map = map
        self.mapSize = mapSize
        self.coverage = coverage
    }
}

/// Compressed bytes and their inflated size.
package struct HistoryImpactCoverage: Equatable, Sendable {
    package var size: Int
    package var bytes: [UInt8]

    package init(size: Int, bytes: [UInt8]) {
        self.size = size
        self.bytes = bytes
    }
}

extension SQLiteHistory {
    /// Stores `map` with the stored run `runUUID` (in one transaction; a second map for the run replaces the first).
    func saveImpactMap(_ map: HistoryImpactMap, runUUID: String) throws {
        let db = try db()
        do {
            try db.transaction {
                guard try Self.insertImpactMap(map, runUUID: runUUID, replacing: true, into: db) else {
                    throw HistoryError.unreadable(path: url.path, detail: "no stored run \(runUUID) to attach the impact map to")
                }
            }
        } catch {
            throw translate(error)
        }
    }

    /// Inserts a map for the stored run `runUUID`; false when there is no such run. Without
    /// `replacing`, a map already there stays (a merge is idempotent).
    @discardableResult
    static func insertImpactMap(_ map: HistoryImpactMap, runUUID: String, replacing: Bool, into db: SQLiteConnection) throws -> Bool {
        let run = try db.prepare("SELECT id FROM run WHERE uuid = ?").bind([.text(runUUID)])
        guard try run.step() else { return false }
        let id = run.int(0)
        try db.prepare("INSERT OR \(replacing ? "REPLACE" : "IGNORE") INTO impact_map(run_id, commit_sha, tree_sha, dirty, environment, map, map_size) VALUES (?, ?, ?, ?, ?, ?, ?)")
            .run([.int(id), .text(map.commit), map.tree.sql, .int(map.dirty ? 1 : 0), .text(map.environment),
                  map.mapSize == nil ? .text(String(decoding: map.map, as: UTF8.self)) : .blob(map.map), map.mapSize?.sql])
        if let coverage = map.coverage {
            try db.prepare("INSERT OR \(replacing ? "REPLACE" : "IGNORE") INTO impact_coverage(run_id, size, coverage) VALUES (?, ?, ?)")
                .run([.int(id), .int(Int64(coverage.size)), .blob(coverage.bytes)])
        }
        return true
    }

    /// Every stored map with its run's uuid (what `merge` copies); none in a file older than schema 2.
    func allImpactMaps() throws -> [(runUUID: String, map: HistoryImpactMap)] {
        let db = try db()
        do {
            guard try db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'impact_map'") > 0 else { return [] }
            let statement = try db.prepare("""
                SELECT r.uuid, m.commit_sha, m.tree_sha, m.dirty, m.environment, m.map, \(try Self.mapSizeColumn(db)) FROM impact_map m JOIN run r ON r.id = m.run_id ORDER BY r.id
                """)
            var found: [(String, HistoryImpactMap)] = []
            while try statement.step() {
                found.append((statement.text(0) ?? "", HistoryImpactMap(commit: statement.text(1) ?? "", tree: statement.text(2), dirty: statement.int(3) != 0,
                                                                        environment: statement.text(4) ?? "", map: statement.blob(5),
                                                                        mapSize: statement.isNull(6) ? nil : Int(statement.int(6)))))
            }
            // Their per-test lines go with them (schema 3).
            for index in found.indices { found[index].1.coverage = try impactCoverage(runUUID: found[index].0) }
            return found
        } catch {
            throw translate(error)
        }
    }

    /// `m.map_size`, or NULL in a file older than schema 4 (`merge` reads files it does not migrate).
    static func mapSizeColumn(_ db: SQLiteConnection) throws -> String {
        try db.integer("SELECT count(*) FROM pragma_table_info('impact_map') WHERE name = 'map_size'") > 0 ? "m.map_size" : "NULL"
    }

    /// The maps recorded at any of `commits`, newest run first; none in a file older than schema 2.
    func impactMaps(commits: [String]) throws -> [HistoryImpactMap] {
        let db = try db()
        do {
            guard try db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'impact_map'") > 0 else { return [] }
            var found: [(Double, HistoryImpactMap)] = []
            // Bound in chunks: SQLite limits a statement's parameters (32,766 since 3.32, 999 before).
            for start in stride(from: 0, to: commits.count, by: 500) {
                let chunk = commits[start..<min(start + 500, commits.count)]
                let statement = try db.prepare("""
                    SELECT m.commit_sha, m.tree_sha, m.dirty, m.environment, m.map, r.started_at, r.uuid, \(try Self.mapSizeColumn(db)) FROM impact_map m JOIN run r ON r.id = m.run_id
                    WHERE m.commit_sha IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ",")))
                    """).bind(chunk.map { .text($0) })
                while try statement.step() {
                    var map = HistoryImpactMap(commit: statement.text(0) ?? "", tree: statement.text(1), dirty: statement.int(2) != 0,
                                               environment: statement.text(3) ?? "", map: statement.blob(4),
                                               mapSize: statement.isNull(7) ? nil : Int(statement.int(7)))
                    map.runUUID = statement.text(6)
                    found.append((statement.double(5) ?? 0, map))
                }
            }
            return found.sorted { $0.0 > $1.0 }.map(\.1)
        } catch {
            throw translate(error)
        }
    }

    /// The per-test lines stored with the map of run `runUUID`; nil when there are none (a map recorded
    /// before schema 3, or a file older than it).
    func impactCoverage(runUUID: String) throws -> HistoryImpactCoverage? {
        let db = try db()
        do {
            guard try db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'impact_coverage'") > 0 else { return nil }
            let statement = try db.prepare("SELECT c.size, c.coverage FROM impact_coverage c JOIN run r ON r.id = c.run_id WHERE r.uuid = ?")
                .bind([.text(runUUID)])
            guard try statement.step() else { return nil }
            return HistoryImpactCoverage(size: Int(statement.int(0)), bytes: statement.blob(1))
        } catch {
            throw translate(error)
        }
    }
}

import Foundation

/// The SQL of one record on PostgreSQL (`HistoryRows`' twin for the other dialect): rows written inside the
/// caller's transaction, in multi-row statements, and read back; every value a `$n` parameter (text format).
enum PostgresRows {
    /// Rows per multi-row INSERT: well below PostgreSQL's 65,535 parameters per statement.
    static let parameterBudget = 30_000

    /// Inserts the record; false when its uuid is already there (then nothing is written).
    static func insert(_ record: HistoryRecord, into db: PostgresConnection) throws -> Bool {
        let r = record.run
        func ratio(_ ratio: HistoryRatio?) -> [String?] { [ratio.map { String($0.covered) }, ratio.map { String($0.total) }] }
        let values: [String?] = [
            r.uuid, r.command, text(r.startedAt.timeIntervalSince1970), text(r.finishedAt.timeIntervalSince1970),
            r.commit, r.tree, r.branch, r.ciProvider, r.ciRunID, r.ciJob, r.seed, r.toolchain, r.host, r.testscopeVersion, String(r.exitStatus),
        ] + ratio(r.lines) + ratio(r.functions) + ratio(r.regions) + [String(r.testCount), String(r.failedCount), r.suiteSeconds.map(text)]
        // A concurrent writer of the same uuid waits here for the first one's commit, then inserts nothing.
        guard let id = try db.query("INSERT INTO run(\(HistoryRows.runColumns)) VALUES (\(placeholders(values.count))) ON CONFLICT (uuid) DO NOTHING RETURNING id",
                                    values).first?[0] else { return false }
        let ids = try testIDs(Set(record.executions.map(\.test) + record.findings.map(\.test)), db)
        // SQLite's INSERT OR REPLACE kept a duplicate's last row (a test reported twice in one iteration, a
        // relaunch): the same here, before the insert (one statement may not touch a row twice).
        let executions = lastOfEach(record.executions) { "\($0.test)\u{0}\($0.iteration)" }
        try insertRows("execution", "run_id, test_id, iteration, outcome, duration, fingerprint, message", executions.map {
            [id, ids[$0.test], String($0.iteration), $0.outcome, $0.duration.map(text), $0.fingerprint, $0.message]
        }, db)
        try insertRows("coverage_file", "run_id, path, lines_covered, lines_total", lastOfEach(record.coverageFiles, \.path).map {
            [id, $0.path, String($0.lines.covered), String($0.lines.total)]
        }, db)
        try insertRows("flaky_finding", "run_id, test_id, classification, runs, failed_runs", lastOfEach(record.findings, \.test).map {
            [id, ids[$0.test], $0.classification, String($0.runs), String($0.failedRuns)]
        }, db)
        return true
    }

    /// The ids of `names`, inserting the new ones (looked up first: after the first runs, every name is
    /// there and nothing is locked). In sorted order: two writers adding the same new names lock them in
    /// the same order (no deadlock; the second waits for the first's commit, then finds them).
    static func testIDs(_ names: Set<String>, _ db: PostgresConnection) throws -> [String: String] {
        var ids: [String: String] = [:]
        func find(_ names: [String]) throws {
            for chunk in chunks(names, size: parameterBudget) {
                for row in try db.query("SELECT id, name FROM test WHERE name IN (\(placeholders(chunk.count)))", chunk.map { Optional($0) }) {
                    if let id = row[0], let name = row[1] { ids[name] = id }
                }
            }
        }
        try find(names.sorted())
        let missing = names.filter { ids[$0] == nil }.sorted()
        for chunk in chunks(missing, size: parameterBudget) {
            try db.query("INSERT INTO test(name) VALUES \(tuples(rows: chunk.count, columns: 1)) ON CONFLICT (name) DO NOTHING", chunk.map { Optional($0) })
        }
        try find(missing)
        return ids
    }

    static func insertRows(_ table: String, _ columns: String, _ rows: [[String?]], _ db: PostgresConnection) throws {
        guard let width = rows.first?.count else { return }
        for chunk in chunks(rows, size: max(1, parameterBudget / width)) {
            try db.query("INSERT INTO \(table)(\(columns)) VALUES \(tuples(rows: chunk.count, columns: width))", chunk.flatMap { $0 })
        }
    }

    /// The runs (oldest first) matching the filters, with their executions, files and findings.
    static func load(from db: PostgresConnection, since: Date?, branch: String?) throws -> [HistoryRecord] {
        var (ids, records) = try runs(from: db, since: since, branch: branch)
        let index = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        // COLLATE "C": bytewise, as SQLite's BINARY orders names, whatever the database's locale.
        try db.forEachRow("""
            SELECT run_id, name, iteration, outcome, duration, fingerprint, message FROM execution JOIN test ON test.id = test_id
            ORDER BY run_id, iteration, name COLLATE "C"
            """) { row in
            guard let i = index[row.int(0)] else { return }
            records[i].executions.append(HistoryExecution(test: row.text(1) ?? "", iteration: Int(row.int(2)), outcome: row.text(3) ?? "",
                                                          duration: row.double(4), fingerprint: row.text(5), message: row.text(6)))
        }
        for row in try db.query("SELECT run_id, path, lines_covered, lines_total FROM coverage_file ORDER BY run_id, path COLLATE \"C\"") {
            guard let i = index[Int64(row[0] ?? "") ?? -1] else { continue }
            records[i].coverageFiles.append(HistoryFileCoverage(path: row[1] ?? "", lines: HistoryRatio(covered: Int(row[2] ?? "") ?? 0, total: Int(row[3] ?? "") ?? 0)))
        }
        return records
    }

    /// The runs (oldest first) matching the filters with their findings, not their executions; and their ids.
    static func runs(from db: PostgresConnection, since: Date?, branch: String?) throws -> (ids: [Int64], records: [HistoryRecord]) {
        var conditions: [String] = [], values: [String?] = []
        if let since { values.append(text(since.timeIntervalSince1970)); conditions.append("started_at >= $\(values.count)") }
        if let branch { values.append(branch); conditions.append("branch = $\(values.count)") }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        var ids: [Int64] = [], records: [HistoryRecord] = []
        for row in try db.query("SELECT id, \(HistoryRows.runColumns) FROM run\(filter) ORDER BY started_at, id", values) {
            func int(_ column: Int) -> Int { Int(row[column] ?? "") ?? 0 }
            var run = HistoryRun(uuid: row[1] ?? "", command: row[2] ?? "", startedAt: Date(timeIntervalSince1970: double(row[3]) ?? 0),
                                 finishedAt: Date(timeIntervalSince1970: double(row[4]) ?? 0), exitStatus: int(15))
            (run.commit, run.tree, run.branch, run.ciProvider, run.ciRunID, run.ciJob) = (row[5], row[6], row[7], row[8], row[9], row[10])
            (run.seed, run.toolchain, run.host, run.testscopeVersion) = (row[11], row[12], row[13], row[14])
            func ratio(_ column: Int) -> HistoryRatio? {
                guard let covered = row[column].flatMap({ Int($0) }), let total = row[column + 1].flatMap({ Int($0) }) else { return nil }
                return HistoryRatio(covered: covered, total: total)
            }
            (run.lines, run.functions, run.regions) = (ratio(16), ratio(18), ratio(20))
            (run.testCount, run.failedCount, run.suiteSeconds) = (int(22), int(23), double(row[24]))
            ids.append(Int64(row[0] ?? "") ?? -1)
            records.append(HistoryRecord(run: run))
        }
        let index = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        for row in try db.query("""
            SELECT run_id, name, classification, runs, failed_runs FROM flaky_finding JOIN test ON test.id = test_id
            ORDER BY run_id, name COLLATE "C"
            """) {
            guard let i = index[Int64(row[0] ?? "") ?? -1] else { continue }
            records[i].findings.append(HistoryFinding(test: row[1] ?? "", classification: row[2] ?? "", runs: Int(row[3] ?? "") ?? 0,
                                                      failedRuns: Int(row[4] ?? "") ?? 0))
        }
        return (ids, records)
    }

    /// The executions of the runs in `place` (id → place among the selected runs), one test at a time,
    /// through a cursor in test order: memory holds one batch and one test's rows.
    static func executionsByTest(from db: PostgresConnection, runs place: [Int64: Int], _ consume: (String, [HistoryTestRow]) -> Void) throws {
        var names: [Int64: String] = [:]
        for row in try db.query("SELECT id, name FROM test") { names[Int64(row[0] ?? "") ?? -1] = row[1] ?? "" }
        var groups = HistoryTestGroups(names: names)
        try db.forEachRow("SELECT test_id, run_id, iteration, outcome, duration, message FROM execution ORDER BY test_id") { row in
            groups.add(row.int(0), place[row.int(1)].map {
                HistoryTestRow(run: $0, iteration: Int(row.int(2)), outcome: row.text(3) ?? "", duration: row.double(4), message: row.text(5))
            }, to: consume)
        }
        groups.finish(consume)
    }

    /// Inserts a map (and its per-test lines) for the stored run `runUUID`; false when there is no such run.
    /// Without `replacing`, a map already there stays (a merge is idempotent).
    static func insertImpactMap(_ map: HistoryImpactMap, runUUID: String, replacing: Bool, into db: PostgresConnection) throws -> Bool {
        guard let id = try db.query("SELECT id FROM run WHERE uuid = $1", [runUUID]).first?[0] else { return false }
        let onConflict = replacing
            ? "UPDATE SET commit_sha = EXCLUDED.commit_sha, tree_sha = EXCLUDED.tree_sha, dirty = EXCLUDED.dirty, environment = EXCLUDED.environment, map = EXCLUDED.map, map_size = EXCLUDED.map_size"
            : "NOTHING"
        try db.query("""
            INSERT INTO impact_map(run_id, commit_sha, tree_sha, dirty, environment, map, map_size) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (run_id) DO \(onConflict)
            """, [id, map.commit, map.tree, map.dirty ? "true" : "false", map.environment, hex(map.map), map.mapSize.map { String($0) }])
        if let coverage = map.coverage {
            try db.query("""
                INSERT INTO impact_coverage(run_id, size, coverage) VALUES ($1, $2, $3)
                ON CONFLICT (run_id) DO \(replacing ? "UPDATE SET size = EXCLUDED.size, coverage = EXCLUDED.coverage" : "NOTHING")
                """, [id, String(coverage.size), hex(coverage.bytes)])
        }
        return true
    }

    /// The maps recorded at any of `commits` (every map: nil), newest run first, each with its run's uuid.
    static func impactMaps(commits: [String]?, from db: PostgresConnection) throws -> [HistoryImpactMap] {
        let select = "SELECT m.commit_sha, m.tree_sha, m.dirty, m.environment, m.map, m.map_size, r.uuid FROM impact_map m JOIN run r ON r.id = m.run_id"
        let rows: [[String?]]
        if let commits {
            rows = try chunks(commits, size: parameterBudget).flatMap {
                try db.query("\(select) WHERE m.commit_sha IN (\(placeholders($0.count))) ORDER BY r.started_at DESC, r.id", $0.map { Optional($0) })
            }
        } else {
            rows = try db.query("\(select) ORDER BY r.id")
        }
        return rows.map { row in
            var map = HistoryImpactMap(commit: row[0] ?? "", tree: row[1], dirty: row[2] == "t", environment: row[3] ?? "",
                                       map: bytes(row[4]), mapSize: row[5].flatMap { Int($0) })
            map.runUUID = row[6]
            return map
        }
    }

    /// A Double as PostgreSQL reads it back exactly (Swift's shortest round-trip digits; PostgreSQL 12+
    /// prints float8 the same way, so a time read back equals the one stored).
    static func text(_ value: Double) -> String { "\(value)" }
    static func double(_ text: String?) -> Double? { text.flatMap { Double($0) } }

    /// BYTEA in text format: `\x` and hex digits, both ways.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8](repeating: 0, count: 2 + bytes.count * 2)
        (out[0], out[1]) = (UInt8(ascii: "\\"), UInt8(ascii: "x"))
        for (i, byte) in bytes.enumerated() { (out[2 + 2 * i], out[3 + 2 * i]) = (digits[Int(byte >> 4)], digits[Int(byte & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    static func bytes(_ text: String?) -> [UInt8] {
        guard let utf8 = text?.utf8, utf8.starts(with: "\\x".utf8) else { return [] }
        func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : (c | 0x20) - 87 }
        let digits = Array(utf8.dropFirst(2))
        return stride(from: 0, to: digits.count - 1, by: 2).map { nibble(digits[$0]) << 4 | nibble(digits[$0 + 1]) }
    }

    static func placeholders(_ count: Int, from first: Int = 1) -> String {
        (first..<first + count).map { "$\($0)" }.joined(separator: ",")
    }

    static func tuples(rows: Int, columns: Int) -> String {
        (0..<rows).map { "(\(placeholders(columns, from: $0 * columns + 1)))" }.joined(separator: ",")
    }

    static func chunks<T>(_ items: [T], size: Int) -> [ArraySlice<T>] {
        stride(from: 0, to: items.count, by: size).map { items[$0..<min($0 + size, items.count)] }
    }

    /// The items with one per key, the last one's value at the first one's place.
    static func lastOfEach<T>(_ items: [T], _ key: (T) -> String) -> [T] {
        var position: [String: Int] = [:], kept: [T] = []
        for item in items {
            if let i = position[key(item)] { kept[i] = item } else { position[key(item)] = kept.count; kept.append(item) }
        }
        return kept
    }
}

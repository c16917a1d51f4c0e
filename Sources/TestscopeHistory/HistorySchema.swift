/// The history's tables, versioned with `PRAGMA user_version` and marked as Testscope's with
/// `PRAGMA application_id`, so that another program's SQLite file is refused rather than altered.
/// A migration per version, applied in order inside the opening transaction (docs/history.md).
enum HistorySchema {
    /// "TsHi" as a big-endian integer.
    static let applicationID: Int64 = 0x5473_4869
    static var currentVersion: Int { migrations.count }

    /// `migrations[n]` brings a file from version n to n + 1.
    static let migrations: [String] = [
        """
        CREATE TABLE run(
          id INTEGER PRIMARY KEY,
          uuid TEXT NOT NULL UNIQUE,
          command TEXT NOT NULL,
          started_at REAL NOT NULL,
          finished_at REAL NOT NULL,
          commit_sha TEXT, tree_sha TEXT, branch TEXT,
          ci_provider TEXT, ci_run_id TEXT, ci_job TEXT,
          seed TEXT, toolchain TEXT, host TEXT, testscope_version TEXT,
          exit_status INTEGER NOT NULL,
          lines_covered INTEGER, lines_total INTEGER,
          functions_covered INTEGER, functions_total INTEGER,
          regions_covered INTEGER, regions_total INTEGER,
          test_count INTEGER NOT NULL, failed_count INTEGER NOT NULL, suite_seconds REAL
        );
        CREATE INDEX run_started ON run(started_at);
        CREATE TABLE test(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE execution(
          run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
          test_id INTEGER NOT NULL REFERENCES test(id),
          iteration INTEGER NOT NULL,
          outcome TEXT NOT NULL,
          duration REAL, fingerprint TEXT, message TEXT,
          PRIMARY KEY(run_id, test_id, iteration)
        ) WITHOUT ROWID;
        CREATE INDEX execution_test ON execution(test_id);
        CREATE TABLE coverage_file(
          run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
          path TEXT NOT NULL,
          lines_covered INTEGER NOT NULL, lines_total INTEGER NOT NULL,
          PRIMARY KEY(run_id, path)
        ) WITHOUT ROWID;
        CREATE TABLE flaky_finding(
          run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
          test_id INTEGER NOT NULL REFERENCES test(id),
          classification TEXT NOT NULL, runs INTEGER NOT NULL, failed_runs INTEGER NOT NULL,
          PRIMARY KEY(run_id, test_id)
        ) WITHOUT ROWID;
        """,
        // 2: test impact analysis's maps (TestscopeImpact owns the content: `map` is its JSON), one per
        // recording run, found by commit.
        """
        CREATE TABLE impact_map(
          run_id INTEGER PRIMARY KEY REFERENCES run(id) ON DELETE CASCADE,
          commit_sha TEXT NOT NULL,
          tree_sha TEXT,
          dirty INTEGER NOT NULL,
          environment TEXT NOT NULL,
          map TEXT NOT NULL
        );
        CREATE INDEX impact_map_commit ON impact_map(commit_sha);
        """,
        // 3: the recording run's per-test lines beside its map (TestscopeImpact owns the content: zlib of
        // per-test.json, `size` bytes inflated), carried forward for the tests a selective run skips.
        """
        CREATE TABLE impact_coverage(
          run_id INTEGER PRIMARY KEY REFERENCES run(id) ON DELETE CASCADE,
          size INTEGER NOT NULL,
          coverage BLOB NOT NULL
        );
        """,
        // 4: maps stored compressed (zlib of the owner's JSON, `map_size` bytes inflated; NULL: an older
        // row, whose `map` is the JSON text): a map names every function, 2.7x per-test.json uncompressed.
        """
        ALTER TABLE impact_map ADD COLUMN map_size INTEGER;
        """,
        // 5: executions kept in test order (the analysis reads one test at a time in one pass: 2 million
        // rows in half a second, against seconds of lookups through an index), found by run through an index.
        """
        CREATE TABLE execution_by_test(
          run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
          test_id INTEGER NOT NULL REFERENCES test(id),
          iteration INTEGER NOT NULL,
          outcome TEXT NOT NULL,
          duration REAL, fingerprint TEXT, message TEXT,
          PRIMARY KEY(test_id, run_id, iteration)
        ) WITHOUT ROWID;
        INSERT INTO execution_by_test SELECT run_id, test_id, iteration, outcome, duration, fingerprint, message FROM execution;
        DROP TABLE execution;
        ALTER TABLE execution_by_test RENAME TO execution;
        CREATE INDEX execution_run ON execution(run_id);
        """,
    ]
}

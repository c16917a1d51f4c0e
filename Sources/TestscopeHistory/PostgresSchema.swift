/// The history's tables on PostgreSQL: SQLite's schema 4 (`HistorySchema`) translated (BIGSERIAL ids,
/// DOUBLE PRECISION times, BYTEA maps), in a schema of its own (`testscope`) so that another program's
/// `run` table is never touched, versioned in `schema_version` (one row). Each migration is a list of
/// single statements (libpq's `PQsendQueryParams` takes one at a time).
enum PostgresSchema {
    static var currentVersion: Int { migrations.count }

    /// `migrations[n]` brings a database from version n to n + 1.
    static let migrations: [[String]] = [
        [
            "CREATE SCHEMA IF NOT EXISTS testscope",
            "CREATE TABLE schema_version(version INTEGER NOT NULL)",
            """
            CREATE TABLE run(
              id BIGSERIAL PRIMARY KEY,
              uuid TEXT NOT NULL UNIQUE,
              command TEXT NOT NULL,
              started_at DOUBLE PRECISION NOT NULL,
              finished_at DOUBLE PRECISION NOT NULL,
              commit_sha TEXT, tree_sha TEXT, branch TEXT,
              ci_provider TEXT, ci_run_id TEXT, ci_job TEXT,
              seed TEXT, toolchain TEXT, host TEXT, testscope_version TEXT,
              exit_status INTEGER NOT NULL,
              lines_covered INTEGER, lines_total INTEGER,
              functions_covered INTEGER, functions_total INTEGER,
              regions_covered INTEGER, regions_total INTEGER,
              test_count INTEGER NOT NULL, failed_count INTEGER NOT NULL, suite_seconds DOUBLE PRECISION
            )
            """,
            "CREATE INDEX run_started ON run(started_at)",
            "CREATE INDEX run_branch ON run(branch, started_at)",
            "CREATE TABLE test(id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
            """
            CREATE TABLE execution(
              run_id BIGINT NOT NULL REFERENCES run(id) ON DELETE CASCADE,
              test_id BIGINT NOT NULL REFERENCES test(id),
              iteration INTEGER NOT NULL,
              outcome TEXT NOT NULL,
              duration DOUBLE PRECISION, fingerprint TEXT, message TEXT,
              PRIMARY KEY(run_id, test_id, iteration)
            )
            """,
            "CREATE INDEX execution_test ON execution(test_id)",
            """
            CREATE TABLE coverage_file(
              run_id BIGINT NOT NULL REFERENCES run(id) ON DELETE CASCADE,
              path TEXT NOT NULL,
              lines_covered INTEGER NOT NULL, lines_total INTEGER NOT NULL,
              PRIMARY KEY(run_id, path)
            )
            """,
            """
            CREATE TABLE flaky_finding(
              run_id BIGINT NOT NULL REFERENCES run(id) ON DELETE CASCADE,
              test_id BIGINT NOT NULL REFERENCES test(id),
              classification TEXT NOT NULL, runs INTEGER NOT NULL, failed_runs INTEGER NOT NULL,
              PRIMARY KEY(run_id, test_id)
            )
            """,
            // `map_size` NULL: a map merged from an SQLite row older than schema 4 (its JSON as it was).
            """
            CREATE TABLE impact_map(
              run_id BIGINT PRIMARY KEY REFERENCES run(id) ON DELETE CASCADE,
              commit_sha TEXT NOT NULL,
              tree_sha TEXT,
              dirty BOOLEAN NOT NULL,
              environment TEXT NOT NULL,
              map BYTEA NOT NULL,
              map_size INTEGER
            )
            """,
            "CREATE INDEX impact_map_commit ON impact_map(commit_sha)",
            """
            CREATE TABLE impact_coverage(
              run_id BIGINT PRIMARY KEY REFERENCES run(id) ON DELETE CASCADE,
              size INTEGER NOT NULL,
              coverage BYTEA NOT NULL
            )
            """,
        ],
    ]
}

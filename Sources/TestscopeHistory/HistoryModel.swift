import Foundation

/// One invocation of `run` or `flaky` as the history stores it: where and when it ran, what every test
/// did, the coverage, the flaky findings. `uuid` is its identity across files (merge stores it once).
package struct HistoryRecord: Sendable, Equatable {
    package var run: HistoryRun
    package var executions: [HistoryExecution] = []
    /// Per-file line counts (paths relative to the package), when the run had coverage.
    package var coverageFiles: [HistoryFileCoverage] = []
    package var findings: [HistoryFinding] = []

    package init(run: HistoryRun, executions: [HistoryExecution] = [], coverageFiles: [HistoryFileCoverage] = [], findings: [HistoryFinding] = []) {
        self.run = run
        self.executions = executions
        self.coverageFiles = coverageFiles
        self.findings = findings
    }
}

/// The run's row: the keys hosted flaky-test services record (ci-formats.md G.2).
package struct HistoryRun: Sendable, Equatable {
    package var uuid: String
    /// `run` or `flaky`.
    package var command: String
    package var startedAt: Date
    package var finishedAt: Date
    package var commit: String?
    /// The commit's tree: two commits with the same tree ran the same code (BuildPulse's key).
    package var tree: String?
    package var branch: String?
    package var ciProvider: String?
    package var ciRunID: String?
    package var ciJob: String?
    /// `flaky`'s seed.
    package var seed: String?
    package var toolchain: String?
    package var host: String?
    package var testscopeVersion: String?
    /// The command's exit status (0 success, 1 tests failed, 2 gate, 3 flaky).
    package var exitStatus: Int
    package var lines: HistoryRatio?
    package var functions: HistoryRatio?
    package var regions: HistoryRatio?
    /// Test results (a parameterized case counts once), failed ones, and the suite's wall time.
    package var testCount: Int = 0
    package var failedCount: Int = 0
    package var suiteSeconds: Double?

    package init(uuid: String = UUID().uuidString.lowercased(), command: String, startedAt: Date, finishedAt: Date, exitStatus: Int) {
        self.uuid = uuid
        self.command = command
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.exitStatus = exitStatus
    }

    /// What "the same code" means for same-commit disagreements: the tree, else the commit.
    package var codeKey: String? { tree ?? commit }
}

/// Covered of total.
package struct HistoryRatio: Sendable, Equatable {
    package var covered: Int
    package var total: Int
    package init(covered: Int, total: Int) {
        self.covered = covered
        self.total = total
    }
    package var percent: Double? { total == 0 ? nil : Double(covered) * 100 / Double(total) }
}

/// How one test ended in one run (or one of `flaky`'s orders: `iteration`).
package struct HistoryExecution: Sendable, Equatable {
    /// `swift test list`'s id, with ` [arguments]` for a parameterized case.
    package var test: String
    package var iteration: Int
    /// `TestOutcome`'s raw value: passed, failed, skipped, expected-failure, crashed, timed-out.
    package var outcome: String
    package var duration: Double?
    /// The failure's place and message with numbers masked, hashed: the same failure again has the same one.
    package var fingerprint: String?
    /// The failure's first line, at most `HistoryExecution.messageLimit` characters.
    package var message: String?

    package static let messageLimit = 200

    package init(test: String, iteration: Int = 0, outcome: String, duration: Double? = nil, fingerprint: String? = nil, message: String? = nil) {
        self.test = test
        self.iteration = iteration
        self.outcome = outcome
        self.duration = duration
        self.fingerprint = fingerprint
        self.message = message
    }

    /// A test's key: `swift test list`'s id, with ` [arguments]` for a parameterized case.
    package static func key(id: String, arguments: String?) -> String { arguments.map { "\(id) [\($0)]" } ?? id }

    /// Pass or fail for flakiness; nil for skipped (a skipped run says nothing, as in Mergify's rules).
    package var passed: Bool? { Self.passed(outcome) }

    /// Pass or fail of an outcome; nil for skipped.
    package static func passed(_ outcome: String) -> Bool? {
        switch outcome {
        case "passed", "expected-failure": return true
        case "failed", "crashed", "timed-out": return false
        default: return nil
        }
    }

    /// The failure fingerprint of a message and place: FNV-1a 64 of `outcome|place|message`, digits
    /// masked (so line numbers inside messages, addresses and counts do not split one failure in many).
    package static func fingerprint(outcome: String, place: String?, message: String?) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let masked = (message ?? "").unicodeScalars.map { CharacterSet.decimalDigits.contains($0) ? "#" : String($0) }.joined()
        for byte in "\(outcome)|\(place ?? "")|\(masked)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    /// The first line of `message`, capped.
    package static func head(_ message: String) -> String {
        let line = message.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? ""
        return line.count > messageLimit ? String(line.prefix(messageLimit - 1)) + "…" : line
    }
}

/// One execution as the analysis reads it, test by test: the place of its run among the selected runs
/// (oldest 0), the iteration, the outcome, the duration and the failure's message.
package struct HistoryTestRow: Sendable, Equatable {
    package var run: Int
    package var iteration: Int
    package var outcome: String
    package var duration: Double?
    package var message: String?
    package init(run: Int, iteration: Int, outcome: String, duration: Double?, message: String?) {
        (self.run, self.iteration, self.outcome, self.duration, self.message) = (run, iteration, outcome, duration, message)
    }
}

/// Both stores' test-by-test read: rows added in test order, each test's rows handed on (with its name)
/// once the next test's first row comes, the last test's at `finish`.
struct HistoryTestGroups {
    let names: [Int64: String]
    private var current: Int64 = -1
    private var rows: [HistoryTestRow] = []

    init(names: [Int64: String]) { self.names = names }

    /// Adds a row of test `test` (nil: an execution of a run not selected).
    mutating func add(_ test: Int64, _ row: HistoryTestRow?, to consume: (String, [HistoryTestRow]) -> Void) {
        if test != current {
            finish(consume)
            current = test
        }
        if let row { rows.append(row) }
    }

    mutating func finish(_ consume: (String, [HistoryTestRow]) -> Void) {
        if !rows.isEmpty { consume(names[current] ?? "", rows) }
        rows = []
    }
}

/// One file's line coverage in a run.
package struct HistoryFileCoverage: Sendable, Equatable {
    package var path: String
    package var lines: HistoryRatio
    package init(path: String, lines: HistoryRatio) {
        self.path = path
        self.lines = lines
    }
}

/// A `flaky` finding: the classification and the runs it rests on.
package struct HistoryFinding: Sendable, Equatable {
    package var test: String
    package var classification: String
    package var runs: Int
    package var failedRuns: Int
    package init(test: String, classification: String, runs: Int, failedRuns: Int) {
        self.test = test
        self.classification = classification
        self.runs = runs
        self.failedRuns = failedRuns
    }
}

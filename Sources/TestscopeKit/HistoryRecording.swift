import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeFlakiness
import TestscopeHistory
import TestscopeReports
import TestscopeTestResults

/// `--history FILE.sqlite` of `run` and `flaky`: the file is checked before any work (a bad one fails
/// the command before the build), its earlier runs give the Tests page's sparklines, and once the
/// command has its outcome one record is appended and `history.html` drawn from the whole file.
struct HistoryRecording {
    /// What the earlier runs say of each of `tests` that flipped: same-code disagreements first (the strongest sign).
    func flakyEvidence(_ tests: [String]) -> [String: String] {
        let wanted = Set(tests)
        var evidence: [String: String] = [:]
        for stats in earlier.tests where wanted.contains(stats.test) && stats.failures > 0 {
            evidence[stats.test] = stats.sameCodeDisagreements > 0
                ? "passed and failed on the same code \(stats.sameCodeDisagreements) time\(stats.sameCodeDisagreements == 1 ? "" : "s") in \(stats.runs) earlier runs"
                : "failed \(stats.failures) of \(stats.runs) earlier runs (\(stats.flips) flip\(stats.flips == 1 ? "" : "s"))"
        }
        return evidence
    }


    var url: URL
    var command: String
    var startedAt: Date
    /// What the runs already stored say (the sparklines, the evidence of flakiness).
    var earlier: HistoryAnalysis

    /// Opens (creating) and checks the file, and reads what it holds; closes it again (the run may last minutes).
    /// A PostgreSQL server that cannot be reached does not stop the run (its record is kept at the end,
    /// `recordHistory`); a wrong schema, another program's tables or no libpq do, before the build.
    static func prepare(_ url: URL?, command: String, timeout: TimeInterval) throws -> HistoryRecording? {
        guard let url else { return nil }
        var earlier = HistoryAnalysis([])
        do {
            let store = try HistoryStore(url: url, mode: .write, busyTimeout: timeout)
            earlier = try store.analysis()
            try store.close()
        } catch let error as HistoryError where url.isPostgresHistory && error.serverAway {
            // The earlier runs are unknown (no sparklines); the run goes on.
        }
        return HistoryRecording(url: url, command: command, startedAt: Date(), earlier: earlier)
    }

    /// Where a run is kept when its PostgreSQL history cannot take it: an SQLite history in the output
    /// folder, which `history push` (or the next run with the same output folder) sends.
    static func pendingFile(in output: OutputFolder) -> URL { output.url.appendingPathComponent("history-pending.sqlite") }

    /// The outcomes of the last `count` runs of every test, this run's last (`current`).
    func timelines(current: TestRunResults, count: Int = 20) -> [String: [HistoryTimelinePoint]] {
        var now = HistoryRun(command: command, startedAt: startedAt, finishedAt: Date(), exitStatus: 0)
        now.uuid = "current"
        // Two stored names Swift calls equal (the same text in two Unicode normalizations: the stores compare
        // bytes) are one test here: their points together, in time order.
        var timelines = Dictionary(earlier.tests.map { ($0.test, $0.points) }, uniquingKeysWith: { ($0 + $1).sorted { $0.date < $1.date } })
        for (test, point) in HistoryTimelines.points(HistoryRecord(run: now, executions: HistoryRecording.executions(current))) {
            timelines[test, default: []].append(point)
        }
        return timelines.mapValues { Array($0.suffix(count)) }
    }

    /// Every result as an execution row: its key (`id [arguments]`), outcome, duration, failure fingerprint and message head.
    /// A test that passed on a retry (`--retry-untouched`) has its failed attempts first (iterations 0…k-1)
    /// and the passing one last: a pass and a fail on the same code, which the history's analysis calls flaky.
    static func executions(_ tests: TestRunResults, iteration: Int = 0) -> [HistoryExecution] {
        var attempted = Set<String>()
        return tests.results.flatMap { result -> [HistoryExecution] in
            let attempts = attempted.insert(result.id).inserted ? tests.otherAttempts[result.id] ?? [] : []
            return attempts.enumerated().map { execution($1, iteration: iteration + $0) } + [execution(result, iteration: iteration + attempts.count)]
        }
    }

    static func execution(_ result: TestCaseResult, iteration: Int) -> HistoryExecution {
        var row = HistoryExecution(test: key(result), iteration: iteration, outcome: result.outcome.rawValue, duration: result.duration)
        guard result.outcome.isFailure else { return row }
        let issue = result.issues.first(where: \.isFailure)
        let message = issue?.message ?? result.crash?.fatalError ?? result.crash?.reason ?? result.outcome.rawValue
        // The file's name, not its path: the same failure on another machine has the same fingerprint.
        let place = (issue?.location ?? result.crash?.location).map { "\(URL(fileURLWithPath: $0.file).lastPathComponent):\($0.line)" }
        row.fingerprint = HistoryExecution.fingerprint(outcome: result.outcome.rawValue, place: place, message: message)
        row.message = HistoryExecution.head(message)
        return row
    }

    static func key(_ result: TestCaseResult) -> String { HistoryExecution.key(id: result.id, arguments: result.arguments) }
}

extension Pipeline {
    /// Appends one command's outcome to the history at `history` (what `run`, `flaky` and a future
    /// `merge` of shards call): the run's facts from git and the CI's variables, every test execution
    /// (each of flaky's orders is an iteration), coverage totals and per-file lines, flaky findings.
    /// Returns the record and where it was stored: `history`, or — a PostgreSQL server away or refusing
    /// the write — `history-pending.sqlite` in `output`, with one warning naming it (the run succeeds).
    @discardableResult
    package func recordHistory(_ outcome: Outcome, command: String, packageRoot: URL, history: URL, output: OutputFolder, startedAt: Date,
                              seed: String? = nil, toolchain: String? = nil) throws -> (record: HistoryRecord, store: URL) {
        var run = HistoryRun(command: command, startedAt: startedAt, finishedAt: Date(), exitStatus: Int(outcome.status.exitStatus))
        HistoryEnvironment(environment: environment).describe(&run, packageRoot: packageRoot)
        (run.seed, run.toolchain, run.host, run.testscopeVersion) = (seed, toolchain, ProcessInfo.processInfo.hostName, TestscopeVersion.current)
        var record = HistoryRecord(run: run)
        if let tests = outcome.tests {
            record.executions = HistoryRecording.executions(tests)
            record.run.suiteSeconds = tests.wallTime
        }
        if let flaky = outcome.flaky {
            record.executions = flaky.executions.enumerated().flatMap { index, order in
                order.results.values.sorted { $0.id < $1.id }.map { HistoryRecording.execution($0, iteration: index) }
            }
            record.findings = flaky.findings.map {
                HistoryFinding(test: $0.id, classification: $0.classification.rawValue, runs: $0.runs, failedRuns: $0.failedRuns)
            }
            record.run.suiteSeconds = flaky.detectionSeconds
        }
        let keys = Set(record.executions.map(\.test))
        record.run.testCount = keys.count
        // A test that passed on a retry did not fail the run: `run`'s failures are its final results.
        if outcome.flaky == nil, let tests = outcome.tests {
            record.run.failedCount = Set(tests.results.filter(\.outcome.isFailure).map(HistoryRecording.key)).count
        } else {
            record.run.failedCount = Set(record.executions.filter { $0.passed == false }.map(\.test)).count
        }
        if let coverage = outcome.coverage {
            func ratio(_ r: CoverageRatio) -> HistoryRatio { HistoryRatio(covered: r.covered, total: r.total) }
            (record.run.lines, record.run.functions, record.run.regions) = (ratio(coverage.totals.lines), ratio(coverage.totals.functions), ratio(coverage.totals.regions))
            record.coverageFiles = coverage.files.map { HistoryFileCoverage(path: $0.relativePath, lines: ratio($0.summary.lines)) }
        }
        let pending = HistoryRecording.pendingFile(in: output)
        do {
            let store = try HistoryStore(url: history, mode: .write, busyTimeout: historyTimeout)
            try store.append(record)
            try store.close()
        } catch let error as HistoryError where history.isPostgresHistory && error.serverAway {
            let store = try HistoryStore(url: pending, mode: .write, busyTimeout: historyTimeout)
            try store.append(record)
            try store.close()
            terminal.emit(.warning("this run is kept in \(pending.path) (\(error.localizedDescription)); the next run with this output folder sends it, or: testscope history push --output \(output.url.path) --into '\(history.historyDisplay)'"))
            return (record, pending)
        }
        sendPending(pending, to: history)
        return (record, history)
    }

    /// Runs kept by earlier runs (the server was away) sent now that it answered; the file removed once they are in.
    private func sendPending(_ pending: URL, to history: URL) {
        guard history.isPostgresHistory else { return }
        do {
            if let sent = try sendKept(pending, to: history) { terminal.note(sent) }
        } catch {
            terminal.emit(.warning("the runs kept in \(pending.path) were not sent (\(error.localizedDescription)); they stay there for the next run"))
        }
    }

    /// `testscope history push`: the runs kept in `output`'s `history-pending.sqlite` sent to `history`, as the
    /// next run would send them; one line either way. A history that cannot take them is an error (the file stays).
    /// Without `output`: `.testscope` under the package around the current folder (as `run`), else in the current folder.
    public func pushHistory(output: URL?, into history: URL) throws -> Outcome {
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let folder = output ?? (PackageLayout.root(containing: here) ?? here).appendingPathComponent(".testscope")
        let pending = HistoryRecording.pendingFile(in: OutputFolder(folder.absoluteURL))
        do {
            terminal.printLine(try sendKept(pending, to: history) ?? "nothing to send: no \(pending.path)")
        } catch let error as HistoryError {
            throw KeptRunsNotSent(reason: error, file: pending.path)
        }
        return Outcome()
    }

    /// The one way kept runs are sent (by `run`, `flaky`, `merge` and `history push`): merged into `history` by
    /// uuid (a run already there is not added again), then the file removed. The line saying so; nil when there is no file.
    private func sendKept(_ pending: URL, to history: URL) throws -> String? {
        guard FileManager.default.fileExists(atPath: pending.path) else { return nil }
        let (added, present) = try HistoryStore.merge([pending], into: history, busyTimeout: historyTimeout)
        try FileManager.default.removeItem(at: pending)
        return "sent \(added) run\(added == 1 ? "" : "s") kept in \(pending.path) to \(history.historyDisplay)"
            + (present > 0 ? " (\(present) already there)" : "")
    }

    /// After `recordHistory`: `history.html` in the output folder from the whole file, and the manifest entry that links it.
    func writeHistoryPage(history: URL, packageRoot: URL, output: OutputFolder, command: String, into outcome: inout Outcome) throws {
        let store = try HistoryStore(url: history, mode: .read, busyTimeout: historyTimeout)
        let analysis = try store.analysis()
        try store.close()
        let pages = PagesManifest.read(in: output).replacing(.history, with: [.history], command: command, in: output)
        var page = HistoryHTMLPage(templates: try HTMLTemplates.builtIn(), generatorVersion: TestscopeVersion.current, packageRoot: packageRoot.path)
        page.navigation = pages.navigation
        page.historyPath = history.historyDisplay
        let path = try page.write(analysis, into: output)
        try pages.write(into: output)
        outcome.written.append(path)
        if !terminal.quiet { terminal.printLine("HTML history: \(path) (\(analysis.runs.count) run\(analysis.runs.count == 1 ? "" : "s") in \(history.historyDisplay))") }
    }
}

extension Outcome.Status {
    /// The documented exit status of the verdict (README "Exit status").
    public var exitStatus: Int32 {
        switch self {
        case .success: return 0
        case .testsFailed: return 1
        case .belowThreshold: return 2
        case .flaky: return 3
        }
    }
}

/// `history push` could not send the kept runs (the server away, a refusal, an unreadable file): the
/// history's own reason, status 65 as for any history that cannot be written, and the file left in place.
struct KeptRunsNotSent: LocalizedError, ClassifiedError {
    var reason: HistoryError
    var file: String
    var errorDescription: String? { "\(reason.localizedDescription); the runs stay in \(file)" }
    var errorClass: ErrorClass { reason.errorClass }
}

import Foundation
import TestscopeExecution
import TestscopeProfileData
import TestscopeTestResults

/// What a flaky run is asked to do.
package struct FlakyOptions: Sendable {
    package var runs: Int
    package var seed: UInt64
    package var jobs: Int
    /// Detection runs may go up to this many at once while the CPUs sit idle (nil: exactly `jobs`).
    package var maxJobs: Int?
    package var filters: [String]
    package var skips: [String]
    package var settings: AnalysisSettings
    /// Known flaky tests: still run and reported, never counted by the gate.
    package var quarantine: Set<String>
    /// Swift Testing by repetition even when its ABI entry point is there (`TESTSCOPE_FLAKY_SWIFT_TESTING=repetition`).
    package var forceRepetition: Bool
    /// Shuffle Swift Testing tests one by one, like XCTest methods, instead of keeping each suite in its
    /// serial order (`--shuffle-swift-testing-tests`; a call of its entry point per test).
    package var shuffleSwiftTestingTests: Bool
    /// The conditions the detection runs take in turn (`--nod-modes`).
    package var modes: [NODMode]

    package init(runs: Int, seed: UInt64, jobs: Int, filters: [String] = [], skips: [String] = [],
                settings: AnalysisSettings = AnalysisSettings(), quarantine: Set<String> = [], forceRepetition: Bool = false,
                shuffleSwiftTestingTests: Bool = false, maxJobs: Int? = nil, modes: [NODMode] = [.plain]) {
        self.runs = runs
        self.modes = modes.isEmpty ? [.plain] : modes
        self.maxJobs = maxJobs
        self.seed = seed
        self.jobs = jobs
        self.filters = filters
        self.skips = skips
        self.settings = settings
        self.quarantine = quarantine
        self.forceRepetition = forceRepetition
        self.shuffleSwiftTestingTests = shuffleSwiftTestingTests
    }
}

/// Runs the plan's orders (in parallel, `jobs` at a time), then classifies every test.
package final class FlakyDetector: Sendable {
    package let binary: FlakyTestBinary
    package let executor: OrderExecutor
    /// Where each detection run's output is kept (`run-<k>.log`), or nil.
    package let logsFolder: URL?

    package init(binary: FlakyTestBinary, executor: OrderExecutor, logsFolder: URL?) {
        self.binary = binary
        self.executor = executor
        self.logsFolder = logsFolder
    }

    /// The tests `--filter`/`--skip` select, in the default order (XCTest as listed, then Swift Testing).
    package func selectedTests(_ options: FlakyOptions) throws -> TestList {
        let selected = binary.tests.applying(filters: options.filters, skips: options.skips)
        guard !(selected.xctest.isEmpty && selected.swiftTesting.isEmpty) else {
            throw FlakinessError.noTests(package: binary.binary.path)
        }
        return selected
    }

    /// Detection runs and analysis. `progress` receives one line per run, in run order.
    package func detect(_ options: FlakyOptions, reproduction: Reproduction, packageRoot: String,
                       progress: @escaping @Sendable (String) -> Void) throws -> FlakyReport {
        let started = Date()
        let selected = try selectedTests(options)
        var method: DetectionMethod = options.forceRepetition && !selected.swiftTesting.isEmpty ? .repetition : .inProcessOrder
        var result: (orders: [PlannedOrder], executions: [ExecutedOrder], peakJobs: Int)
        do {
            result = try detectionRuns(selected, method: method, options: options, progress: progress)
        } catch FlakinessError.swiftTestingUnavailable {
            method = .repetition
            progress("Swift Testing's ABI entry point is not in the binary: its tests are repeated in their default run instead of reordered")
            result = try detectionRuns(selected, method: method, options: options, progress: progress)
        }
        let detectionSeconds = Date().timeIntervalSince(started)
        let analysisStart = Date()
        let tests = selected.xctest.map { AnalyzedTest(id: $0, framework: .xctest, method: .inProcessOrder) }
            + selected.swiftTesting.map { AnalyzedTest(id: $0, framework: .swiftTesting, method: method) }
        let analyzer = FlakinessAnalyzer(runner: executor, settings: options.settings, defaultOrder: result.orders.first?.tests ?? [])
        var findings = try analyzer.analyze(tests, executions: result.executions, jobs: options.jobs)
        let stateStart = Date()
        try searchSharedState(&findings, packageRoot: packageRoot, jobs: options.jobs)
        let stateSeconds = Date().timeIntervalSince(stateStart)
        for i in findings.indices { findings[i].quarantined = options.quarantine.contains(findings[i].id) }
        var report = FlakyReport(seed: options.seed, orders: result.orders, executions: result.executions, findings: findings,
                                 jobs: max(result.peakJobs, 1), packageRoot: packageRoot, binary: binary.binary.path,
                                 swiftTestingMethod: selected.swiftTesting.isEmpty ? .inProcessOrder : method,
                                 startedAt: started, reproduction: reproduction)
        report.jobLimits = (options.jobs, options.maxJobs)
        report.modes = options.modes
        report.detectionSeconds = detectionSeconds
        report.analysisSeconds = Date().timeIntervalSince(analysisStart)
        report.stateSearchSeconds = stateSeconds
        return report
    }

    /// The shared state of each order-dependent finding (`SharedStateSearch`); a search that cannot read the
    /// binary's coverage mapping says so in each finding instead of failing the run.
    func searchSharedState(_ findings: inout [TestFinding], packageRoot: String, jobs: Int) throws {
        let pairs = findings.indices.filter { findings[$0].classification == .odVictim || findings[$0].classification == .odBrittle }
        guard !pairs.isEmpty else { return }
        let root = URL(fileURLWithPath: packageRoot)
        do {
            let search = try SharedStateSearch(executor: executor, packageRoot: root, workDirectory: executor.workDirectory)
            try search.fill(&findings, jobs: jobs)
        } catch let error as ProfileDataError {
            for i in pairs { findings[i].sharedState = SharedStateFinding(items: [], note: "not searched: the test binary's coverage mapping is unreadable (\(error))") }
        }
    }

    /// The plan's runs: in-process orders of every test (or of the XCTest tests, with Swift Testing
    /// repeated in its default run beside each).
    func detectionRuns(_ selected: TestList, method: DetectionMethod, options: FlakyOptions,
                       progress: @escaping @Sendable (String) -> Void) throws -> (orders: [PlannedOrder], executions: [ExecutedOrder], peakJobs: Int) {
        let orders = plan(selected, method: method, options: options).orders(count: options.runs)
        let printer = OrderedPrinter(progress)
        if let logsFolder {
            try FileManager.default.createDirectory(at: logsFolder, withIntermediateDirectories: true)
            // Logs of an earlier run with more orders would look like this run's.
            for name in (try? FileManager.default.contentsOfDirectory(atPath: logsFolder.path)) ?? [] where name.hasPrefix("run-") && name.hasSuffix(".log") {
                try? FileManager.default.removeItem(at: logsFolder.appendingPathComponent(name))
            }
        }
        // One mode at a time, so that the stress mode's load reaches its own runs only.
        var executions = [ExecutedOrder?](repeating: nil, count: orders.count)
        var peakJobs = 0
        for mode in options.modes {
            let indices = orders.indices.filter { orders[$0].mode == mode }
            guard !indices.isEmpty else { continue }
            let load = mode == .stress ? StressLoad() : nil
            defer { load?.stop() }
            // Under stress no runs are added for idle CPUs: there are none, by design.
            let (results, peak) = try AdaptivePool.map(indices.count, jobs: options.jobs, maxJobs: mode == .stress ? nil : options.maxJobs) { i -> ExecutedOrder in
                let index = indices[i]
                let planned = orders[index]
                let log = try self.logsFolder.map { try LineLog($0.appendingPathComponent(String(format: "run-%02d.log", index))) }
                var execution = planned.tests.isEmpty ? ExecutedOrder(order: [], mode: mode)
                    : try self.executor.execute(planned.tests, log: log, mode: mode, runIndex: index)
                if method == .repetition, !selected.swiftTesting.isEmpty {
                    let repeated = try self.executor.executeDefaultSwiftTesting(selected.swiftTesting, log: log)
                    for (id, result) in repeated.results { execution.results[id] = result }
                    execution.processes += repeated.processes
                    execution.notRun += repeated.notRun
                }
                try log?.commit()
                printer.print(index, Self.line(planned, execution, of: orders.count))
                return execution
            }
            for (i, execution) in zip(indices, results) { executions[i] = execution }
            peakJobs = max(peakJobs, peak)
        }
        return (orders, executions.map { $0! }, peakJobs)
    }

    /// The plan of a seed: every selected test (with Swift Testing by repetition: the XCTest tests only).
    package func plan(_ selected: TestList, method: DetectionMethod, options: FlakyOptions) -> OrderPlan {
        let ordered = method == .inProcessOrder ? selected.xctest + selected.swiftTesting : selected.xctest
        return OrderPlan(seed: options.seed, defaultOrder: ordered,
                         fixedWithinGroup: options.shuffleSwiftTestingTests ? [:] : binary.swiftTestingRanks, modes: options.modes)
    }

    /// Run `index` of the plan of `options` (`--replay`).
    package func replayOrder(_ options: FlakyOptions, index: Int) throws -> PlannedOrder {
        let selected = try selectedTests(options)
        let method: DetectionMethod = options.forceRepetition && !selected.swiftTesting.isEmpty ? .repetition : .inProcessOrder
        return plan(selected, method: method, options: options).order(index)
    }

    /// Re-runs one order `count` times (`--order`, `--order-file`, `--replay`), repetition k under
    /// `modes[k % count]`, one mode at a time (as the detection runs).
    package func replay(_ order: [String], count: Int, jobs: Int, modes: [NODMode] = [.plain]) throws -> [ExecutedOrder] {
        var executions = [ExecutedOrder?](repeating: nil, count: count)
        let modes = modes.isEmpty ? [.plain] : modes
        for mode in modes {
            let indices = (0..<count).filter { NODMode.mode(ofRun: $0, in: modes) == mode }
            guard !indices.isEmpty else { continue }
            let load = mode == .stress ? StressLoad() : nil
            defer { load?.stop() }
            let results = try AdaptivePool.map(indices.count, jobs: jobs) { i in
                try self.executor.execute(order, mode: mode, runIndex: indices[i])
            }
            for (i, execution) in zip(indices, results) { executions[i] = execution }
        }
        return executions.map { $0! }
    }

    /// `run 3 (4/12)  method-shuffle (run seed 0x…)  14 passed, 2 failed  0.42 s`: the run's index (what
    /// `--replay` takes) and its position among all runs ("run 0/5" read as 5 runs where there were 6).
    package static func line(_ planned: PlannedOrder, _ execution: ExecutedOrder, of total: Int) -> String {
        let tally = RunTally(execution)
        return "run \(planned.index) (\(planned.index + 1)/\(total))  \(planned.label)  \(tally.counts.joined(separator: ", "))  \(tally.time)"
    }
}

/// Prints lines given out of order (by parallel runs) in index order.
final class OrderedPrinter: Sendable {
    private let state = Locked((pending: [Int: String](), next: 0))
    private let sink: @Sendable (String) -> Void

    init(_ sink: @escaping @Sendable (String) -> Void) { self.sink = sink }

    func print(_ index: Int, _ line: String) {
        state.withLock { state in
            state.pending[index] = line
            while let ready = state.pending.removeValue(forKey: state.next) {
                sink(ready)
                state.next += 1
            }
        }
    }
}

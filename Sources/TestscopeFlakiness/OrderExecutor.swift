import Foundation
import TestscopeExecution
import TestscopeRun
import TestscopeTestResults

/// What running one order gave: each test's result, and which tests shared a process (state leaks only
/// within a process, so a test's *prefix* is what ran before it in its own process).
public struct ExecutedOrder: Sendable {
    public var order: [String]
    /// By test id; the cases of a parameterized Swift Testing test are merged (failed if any case failed).
    public var results: [String: TestCaseResult] = [:]
    /// The tests that ran in each process, in the order they ran; a crash or a kill starts a new process.
    public var processes: [[String]] = []
    /// Tests of the order that never ran.
    public var notRun: [String] = []
    public var seconds: Double = 0
    /// The conditions it ran under.
    public var mode: NODMode = .plain

    public init(order: [String], mode: NODMode = .plain) {
        self.order = order
        self.mode = mode
    }

    /// How often the binary was started again after a crash or a kill.
    public var relaunches: Int { max(0, processes.count - 1) }

    public func verdict(_ id: String) -> Verdict? { results[id].map { Verdict($0.outcome) } }

    /// The tests that ran before `id` in the same process.
    public func prefix(of id: String) -> [String]? {
        for process in processes { if let i = process.firstIndex(of: id) { return Array(process[..<i]) } }
        return nil
    }
}

/// A test's outcome reduced to what flakiness is about.
public enum Verdict: String, Sendable, Equatable {
    case pass, fail, skip

    public init(_ outcome: TestOutcome) {
        switch outcome {
        case .passed, .expectedFailure: self = .pass
        case .failed, .crashed, .timedOut: self = .fail
        case .skipped: self = .skip
        }
    }
}

/// Runs an order in the binary built with Testscope's entry point, under a `TestSupervisor`: the order
/// goes in a file named by `TESTSCOPE_ORDER_FILE`, a test past `testTimeout` is killed, and after a
/// crash or a kill the rest of the order continues in a new process.
package final class OrderExecutor: Sendable {
    package let binary: URL
    package let testTimeout: Double?
    let swiftTestingRanks: [String: Int]
    let workDirectory: URL
    let supervisor: TestSupervisor
    /// Hears of processes that ended early (and, through the supervisor, of tests that left a process running).
    let warn: (@Sendable (Diagnostic) -> Void)?
    private let counter = Locked(0)

    /// `flaky`'s policy: the order is the experiment, so after a crash the rest of the order runs (a test
    /// the crash skipped stays unrun); tests run one at a time, so a crash that names no Swift Testing
    /// test is blamed on the one in flight.
    package static let policy = SupervisionPolicy(relaunch: .restOfOrder, blameFirstInFlight: true)

    /// `warn` hears of tests that left a process running (killed when their process ended) and of
    /// processes that exited before the end of their order.
    package init(binary: FlakyTestBinary, workDirectory: URL, testTimeout: Double?,
                environment: [String: String] = ProcessInfo.processInfo.environment,
                warn: (@Sendable (Diagnostic) -> Void)? = nil) {
        self.binary = binary.binary
        self.testTimeout = testTimeout
        self.swiftTestingRanks = binary.swiftTestingRanks
        self.workDirectory = workDirectory
        self.warn = warn
        var env = environment
        env.removeValue(forKey: EntryPointSource.orderVariable)
        // The binary is `run`'s, built with coverage: flaky's runs do not want their counts, and without this
        // every process would write a `default.profraw` into the current folder (or where the caller's says).
        env["LLVM_PROFILE_FILE"] = "/dev/null"
        // Each run is a new process with its own random hash seed (Set and Dictionary order), as in a
        // user's runs: a fixed seed from the caller's environment would hide hash-order flakiness.
        env.removeValue(forKey: "SWIFT_DETERMINISTIC_HASHING")
        supervisor = TestSupervisor(binary: binary.binary, environment: TestSupervisor.testEnvironment(env, noColor: true),
                                    policy: Self.policy, timeout: testTimeout, moduleForClass: binary.tests.moduleForClass, warn: warn)
    }

    private func nextToken() -> Int { counter.withLock { $0 += 1; return $0 } }

    private func supervisor(log: LineLog?) -> TestSupervisor {
        var supervisor = self.supervisor
        if let log { supervisor.onLine = { log.write($0) } }
        return supervisor
    }

    /// Runs `order` (relaunching after crashes and kills) under `mode` (run `runIndex` of a plan: a one-core
    /// run's CPU depends on it) and returns every test's result. The `stress` mode's load is the caller's.
    /// `perTestDirectory`: each process also records what each test ran there (the entry point's per-test
    /// recorder; the state search).
    package func execute(_ order: [String], log: LineLog? = nil, mode: NODMode = .plain, runIndex: Int = 0,
                         perTestDirectory: URL? = nil) throws -> ExecutedOrder {
        let token = nextToken()
        let started = Date()
        let run = try supervisor(log: log).run(order, launch: { tests, index in
            log?.write("=== testscope: process \(index + 1): \(tests.count) test(s) ===")
            let orderFile = workDirectory.appendingPathComponent("order-\(token)-\(index).txt")
            let events = workDirectory.appendingPathComponent("events-\(token)-\(index).jsonl")
            let lines = SwiftTestingOrder.batchedLines(tests, ranks: swiftTestingRanks, parallel: mode == .parallel)
            try AtomicFileWriter.write(OrderFile.text(lines), to: orderFile)
            let environment = mode.environment(run: runIndex).merging([EntryPointSource.orderFileVariable: orderFile.path,
                                                                  EntryPointSource.eventStreamVariable: events.path,
                                                                  EntryPointSource.perTestDirectoryVariable: perTestDirectory?.path]) { _, order in order }
            return TestLaunch(arguments: [], environment: environment, eventStream: events, temporaryFiles: [orderFile, events])
        }, inspect: { process in
            try self.checkRan(process)
            if process.reported.isEmpty, !process.interrupted, process.result.status != 0 {
                // Not a test's failure: the binary could not run the order at all.
                throw FlakinessError.testBinaryFailed(binary: self.binary.path, detail: "it ran no test and exited with \(process.result.status)"
                    + (process.lastLines.isEmpty ? "" : ": " + process.lastLines.suffix(3).joined(separator: " / ")))
            }
            if !process.interrupted, let warning = Self.endedEarly(process, log: log) { self.warn?(warning) }
        })
        var executed = ExecutedOrder(order: order, mode: mode)
        executed.processes = run.processes.map(\.reported)
        executed.results = Self.byID(run.processes)
        executed.notRun = run.notRun
        executed.seconds = Date().timeIntervalSince(started)
        return executed
    }

    /// Swift Testing's own default run of `tests` (no order), for binaries without the ABI entry point:
    /// repetition only, one process, `--no-parallel`.
    package func executeDefaultSwiftTesting(_ tests: [String], log: LineLog? = nil) throws -> ExecutedOrder {
        let token = nextToken()
        let started = Date()
        var supervisor = self.supervisor(log: log)
        supervisor.policy.relaunch = .never
        let run = try supervisor.run(tests, launch: { tests, _ in
            let events = workDirectory.appendingPathComponent("events-\(token)-st.jsonl")
            log?.write("=== testscope: Swift Testing default run (repetition) ===")
            return TestLaunch(arguments: ["--testing-library", "swift-testing", "--no-parallel", "--event-stream-output-path", events.path]
                                  + TestSupervisor.swiftTestingFilters(tests),
                              environment: [EntryPointSource.orderFileVariable: nil], eventStream: events, temporaryFiles: [events])
        }, inspect: checkRan)
        var executed = ExecutedOrder(order: tests)
        executed.results = Self.byID(run.processes).filter { tests.contains($0.key) }
        executed.processes = [tests.filter { executed.results[$0] != nil }]
        executed.notRun = tests.filter { executed.results[$0] == nil }
        executed.seconds = Date().timeIntervalSince(started)
        return executed
    }

    /// The warning for a process that exited without a crash before the end of its order: the tests
    /// after the last one that reported never ran (the supervisor relaunches the binary for them).
    static func endedEarly(_ process: SupervisedProcess, log: LineLog?) -> Diagnostic? {
        let reported = process.reported
        let lastIndex = reported.last.flatMap { process.tests.firstIndex(of: $0) } ?? -1
        let unrun = process.tests.count - lastIndex - 1
        guard unrun > 0 else { return nil }
        let next = reported.isEmpty ? "not relaunched: it ran none of them" : "relaunched for the \(unrun) after \(reported.last!)"
        return .warning("the test process exited (status \(process.result.status), no crash) after \(reported.count) of \(process.tests.count) test(s) "
            + "of an order; \(next)" + (log.map { " (log: \($0.path))" } ?? ""))
    }

    /// The entry point exits with its own status, after a marker line, when Swift Testing's ABI entry point is missing.
    private func checkRan(_ process: SupervisedProcess) throws {
        if process.result.status == EntryPointSource.abiUnavailableStatus, !process.result.terminatedBySignal,
           process.lastLines.contains(where: { $0.hasPrefix(EntryPointSource.abiUnavailableMarker) }) {
            throw FlakinessError.swiftTestingUnavailable
        }
    }

    /// One result per id: within a process a parameterized test fails if any of its cases failed; a
    /// later process's result replaces an earlier one's.
    static func byID(_ processes: [SupervisedProcess]) -> [String: TestCaseResult] {
        var results: [String: TestCaseResult] = [:]
        for process in processes {
            var own: [String: TestCaseResult] = [:]
            for result in process.results { own[result.id] = merge(own[result.id], result) }
            results.merge(own) { _, later in later }
        }
        return results
    }

    static func merge(_ a: TestCaseResult?, _ b: TestCaseResult) -> TestCaseResult {
        guard let a else { return b }
        if Verdict(b.outcome) == .fail && Verdict(a.outcome) != .fail { return b }
        return a
    }
}

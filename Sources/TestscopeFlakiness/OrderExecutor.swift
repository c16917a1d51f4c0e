import Foundation
import TestscopeExecution
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

    public init(order: [String]) { self.order = order }

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

/// Runs an order in the binary built with Testscope's entry point: the order goes in a file named by
/// `TESTSCOPE_ORDER_FILE`, the output is parsed live (XCTest console, Swift Testing event stream), a test
/// past `testTimeout` is killed, and after a crash or a kill the rest of the order continues in a new process.
public final class OrderExecutor: @unchecked Sendable {
    public let binary: URL
    public let testTimeout: Double?
    let moduleForClass: [String: String]
    let swiftTestingRanks: [String: Int]
    let workDirectory: URL
    let environment: [String: String]
    private let lock = NSLock()
    private var counter = 0

    public init(binary: FlakyTestBinary, workDirectory: URL, testTimeout: Double?,
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.binary = binary.binary
        self.testTimeout = testTimeout
        self.moduleForClass = binary.tests.moduleForClass
        self.swiftTestingRanks = binary.swiftTestingRanks
        self.workDirectory = workDirectory
        var env = environment
        env.removeValue(forKey: EntryPointSource.orderVariable)
        if env["SWIFT_BACKTRACE"] == nil { env["SWIFT_BACKTRACE"] = "interactive=no" }
        env["SWT_EXPERIMENTAL_EVENT_STREAM_FIELDS_ENABLED"] = "1"
        env["NO_COLOR"] = "1"
        self.environment = env
    }

    /// Runs `order` (relaunching after crashes and kills) and returns every test's result.
    public func execute(_ order: [String], log: LineLog? = nil) throws -> ExecutedOrder {
        lock.lock(); counter += 1; let token = counter; lock.unlock()
        let started = Date()
        var executed = ExecutedOrder(order: order)
        var remaining = order
        while !remaining.isEmpty {
            let index = executed.processes.count
            log?.write("=== testscope: process \(index + 1): \(remaining.count) test(s) ===")
            let process = try runProcess(remaining, token: token, index: index, log: log)
            var ran = remaining.filter { process.results[$0] != nil }
            if ran.isEmpty, !process.abnormal, process.status != 0 {
                // Not a test's failure: the binary could not run the order at all.
                throw FlakinessError.testBinaryFailed(binary: binary.path, detail: "it ran no test and exited with \(process.status)"
                    + (process.lastLines.isEmpty ? "" : ": " + process.lastLines.suffix(3).joined(separator: " / ")))
            }
            var results = process.results
            if process.abnormal, ran.count < remaining.count, process.blamed == nil {
                // The process died between tests: blame the first test that did not report, so the run moves on.
                let first = remaining.first { results[$0] == nil }!
                results[first] = Self.blamed(first, evidence: process.crash, timedOut: process.timedOut, timeout: testTimeout)
                ran = remaining.filter { results[$0] != nil }
            }
            for (id, result) in results { executed.results[id] = result }
            executed.processes.append(ran)
            guard let last = ran.last.flatMap({ remaining.firstIndex(of: $0) }) else {
                executed.notRun += remaining
                break
            }
            executed.notRun += remaining[...last].filter { results[$0] == nil }
            let rest = Array(remaining[(last + 1)...])
            if process.abnormal { remaining = rest } else { executed.notRun += rest; remaining = [] }
        }
        executed.seconds = Date().timeIntervalSince(started)
        return executed
    }

    struct ProcessOutcome {
        var results: [String: TestCaseResult]
        var abnormal: Bool
        var blamed: String?
        var crash: CrashEvidence?
        var timedOut: Bool
        var status: Int32 = 0
        /// The process's last lines of output (for an error when it ran nothing).
        var lastLines: [String] = []
    }

    /// Swift Testing's own default run of `tests` (no order), for binaries without the ABI entry point:
    /// repetition only, one process, `--no-parallel`.
    public func executeDefaultSwiftTesting(_ tests: [String], log: LineLog? = nil) throws -> ExecutedOrder {
        lock.lock(); counter += 1; let token = counter; lock.unlock()
        let started = Date()
        let events = workDirectory.appendingPathComponent("events-\(token)-st.jsonl")
        var arguments = ["--testing-library", "swift-testing", "--no-parallel", "--event-stream-output-path", events.path]
        for id in tests { arguments += ["--filter", "^" + NSRegularExpression.escapedPattern(for: id) + "(/|$)"] }
        log?.write("=== testscope: Swift Testing default run (repetition) ===")
        let process = try runProcess(nil, arguments: arguments, events: events, token: token, index: 0, log: log)
        var executed = ExecutedOrder(order: tests)
        executed.results = process.results.filter { tests.contains($0.key) }
        executed.processes = [tests.filter { executed.results[$0] != nil }]
        executed.notRun = tests.filter { executed.results[$0] == nil }
        executed.seconds = Date().timeIntervalSince(started)
        return executed
    }

    private func runProcess(_ order: [String], token: Int, index: Int, log: LineLog?) throws -> ProcessOutcome {
        let events = workDirectory.appendingPathComponent("events-\(token)-\(index).jsonl")
        return try runProcess(order, arguments: [], events: events, token: token, index: index, log: log)
    }

    private func runProcess(_ order: [String]?, arguments: [String], events: URL, token: Int, index: Int, log: LineLog?) throws -> ProcessOutcome {
        let orderFile = workDirectory.appendingPathComponent("order-\(token)-\(index).txt")
        defer {
            try? FileManager.default.removeItem(at: orderFile)
            try? FileManager.default.removeItem(at: events)
        }
        var env = environment
        if let order {
            try AtomicFileWriter.write(OrderFile.text(SwiftTestingOrder.batchedLines(order, ranks: swiftTestingRanks)), to: orderFile)
            env[EntryPointSource.orderFileVariable] = orderFile.path
            env[EntryPointSource.eventStreamVariable] = events.path
        } else {
            env.removeValue(forKey: EntryPointSource.orderFileVariable)
        }
        let watch = ProcessWatch(moduleForClass: moduleForClass, events: events, timeout: testTimeout)
        let done = DispatchSemaphore(value: 0)
        let watchdog = Thread { while done.wait(timeout: .now() + 0.1) == .timedOut { watch.tick() } }
        watchdog.start()
        let result: ProcessResult
        do {
            defer { done.signal() }
            result = try ProcessRunner.stream(binary, arguments, environment: env, echo: false,
                                              onStart: { watch.started(pid: $0) },
                                              onLine: { line in log?.write(line); watch.consume(line) })
        }
        if result.status == EntryPointSource.abiUnavailableStatus, !result.terminatedBySignal, watch.sawABIUnavailable {
            throw FlakinessError.swiftTestingUnavailable
        }
        return watch.collect(result, timeout: testTimeout)
    }

    static func blamed(_ id: String, evidence: CrashEvidence?, timedOut: Bool, timeout: Double?) -> TestCaseResult {
        let isXCTest = id.contains("/") && !id.hasSuffix(")")
        let parts = SwiftTestingEventStream.split(id)
        var crash = evidence ?? CrashEvidence()
        if crash.reason == nil { crash.reason = "the test process died before this test reported a result" }
        return TestCaseResult(id: id, framework: isXCTest ? .xctest : .swiftTesting, module: parts.module, suite: parts.suite,
                              name: parts.name, outcome: timedOut ? .timedOut : .crashed, duration: timedOut ? timeout : nil, crash: crash)
    }
}

/// The live state of one test process: parsers, the watchdog's clock, and whether Testscope killed it.
final class ProcessWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var xctest: XCTestConsoleParser
    private var tail = EventStreamTail()
    private var stream: SwiftTestingEventStream { tail.stream }
    private var streamSeen: [String: Date] { tail.firstSeen }
    private var xcSince: Date?
    private var pid: Int32 = 0
    private(set) var killed: (id: String, framework: TestFramework)?
    private(set) var sawABIUnavailable = false
    private var lastLines: [String] = []
    let events: URL
    let timeout: Double?

    init(moduleForClass: [String: String], events: URL, timeout: Double?) {
        xctest = XCTestConsoleParser(moduleForClass: moduleForClass)
        self.events = events
        self.timeout = timeout
    }

    func started(pid: Int32) { lock.lock(); self.pid = pid; lock.unlock() }

    func consume(_ line: String) {
        lock.lock(); defer { lock.unlock() }
        if line.hasPrefix(EntryPointSource.abiUnavailableMarker) { sawABIUnavailable = true }
        if !line.isEmpty { lastLines.append(line); if lastLines.count > 10 { lastLines.removeFirst() } }
        let before = xctest.running
        // `Test Case '…' started at <local time>`: the start is taken when the line arrives instead of
        // parsing XCTest's stamp (a DateFormatter per line was most of the parsing time of a run).
        if line.hasPrefix("Test Case '"), let at = line.range(of: "' started at ") {
            xctest.consume(String(line[..<at.lowerBound]) + "' started")
        } else {
            xctest.consume(line)
        }
        if xctest.running != nil, xctest.running != before { xcSince = Date() }
    }

    /// Reads new event records and kills a test that ran past the limit.
    func tick() {
        lock.lock(); defer { lock.unlock() }
        readStream()
        guard let timeout, killed == nil, pid > 0 else { return }
        if let running = xctest.running, let since = xcSince, Date().timeIntervalSince(since) > timeout {
            killed = (running.key, .xctest)
            kill()
            return
        }
        for id in stream.inFlight {
            if let since = streamSeen[id], Date().timeIntervalSince(since) > timeout {
                killed = (id, .swiftTesting)
                kill()
                return
            }
        }
    }

    private func kill() {
        ProcessTree.killDescendants(of: pid)
        _ = Foundation.kill(pid, SIGKILL)
    }

    private func readStream() {
        tail.read(events)
    }

    /// The process's results once it has ended.
    func collect(_ result: ProcessResult, timeout: Double?) -> OrderExecutor.ProcessOutcome {
        lock.lock(); defer { lock.unlock() }
        readStream()
        let signal = result.terminatedBySignal ? Int(result.status) : nil
        let xcKilled = killed?.framework == .xctest
        let xcRunning = xctest.running
        let outsideCrash = xctest.crashOutsideTests
        xctest.finish(signal: xcKilled ? 9 : signal, timedOut: xcKilled, timeout: timeout)
        var results: [String: TestCaseResult] = [:]
        for r in xctest.results { results[r.id] = r }
        var blamed: String? = xcRunning.flatMap { running in xctest.results.last { $0.suite == running.className && $0.name == running.method }?.id }
        for r in stream.results() { results[r.id] = Self.merge(results[r.id], r) }
        let inFlight = stream.inFlight
        if !inFlight.isEmpty {
            let killedST = killed?.framework == .swiftTesting ? killed?.id : nil
            if let culprit = stream.blame(killed: killedST, crash: outsideCrash, orFirst: true) {
                let r = stream.interruptedResult(culprit, timedOut: killedST != nil, crash: outsideCrash, signal: signal,
                                                 timeout: timeout, firstSeen: streamSeen[culprit])
                results[r.id] = Self.merge(results[r.id], r)
                blamed = r.id
            }
        }
        let abnormal = signal != nil || killed != nil || xcRunning != nil || !inFlight.isEmpty
        return OrderExecutor.ProcessOutcome(results: results, abnormal: abnormal, blamed: blamed, crash: outsideCrash,
                                            timedOut: killed != nil, status: result.status, lastLines: lastLines)
    }

    /// One result per id: a parameterized test fails if any of its cases failed.
    static func merge(_ a: TestCaseResult?, _ b: TestCaseResult) -> TestCaseResult {
        guard let a else { return b }
        if Verdict(b.outcome) == .fail && Verdict(a.outcome) != .fail { return b }
        return a
    }
}

import Foundation
import TestscopeExecution

/// Reads XCTest console output line by line (live or from a log) into results. Lines that belong
/// to no known kind become the running test's output; a process that dies mid-test leaves that
/// test `crashed` with the `Fatal error` line, the signal and the backtrace frames that name it.
package struct XCTestConsoleParser {
    /// Which module a class is in, from the test list (Linux lines omit the module).
    package var moduleForClass: XCTestModules
    package private(set) var results: [TestCaseResult] = []
    /// The test that started and has not finished (with its module, when the test list knows it).
    package private(set) var running: XCTestName?
    package private(set) var runningSince: Date?
    /// The ids of the tests that have a result.
    private var finished: Set<String> = []
    /// The class suite XCTest is running (`Test Suite 'Class' started`) and the module its tests showed.
    private var suite: (className: String, module: String?)?
    package private(set) var sawSummary = false

    private var issues: [TestIssue] = []
    private var output: [String] = []
    private var metrics: [PerformanceMetric] = []
    private var skipReason: String?
    private var crash = CrashEvidence()
    private var inCrash = false
    private var inCrashedThread = false
    private var lastWasIssue = false

    /// True while reading a running process: a test cut short then ran until now. Reading a
    /// recorded log, how long such a test ran is unknown.
    package var live = false

    package init(moduleForClass: XCTestModules = [:], live: Bool = false) {
        self.moduleForClass = moduleForClass
        self.live = live
    }

    /// Feeds one line of output (without its line break).
    package mutating func consume(_ rawLine: String) {
        let line = ANSI.strip(rawLine)
        if running != nil, line.hasSuffix(" Test run started.") {
            // Swift Testing starts: the XCTest process before it has ended.
            finish(signal: crash.signal, timedOut: false)
        }
        guard let parsed = XCTestLine.parse(Substring(line)) else {
            // The crashed thread's frames end where the next thread, the registers or the images begin.
            if inCrashedThread, line.hasPrefix("Thread ") || line.hasPrefix("Registers") || line.hasPrefix("Images") { inCrashedThread = false }
            if running != nil, !inCrash, output.count < 2000 { output.append(line) }
            lastWasIssue = false
            return
        }
        switch parsed {
        case let .caseStarted(name, at):
            finishRunningAsInterrupted()
            running = withModule(name)
            // Darwin's `started.` has no time: now while the process runs, unknown in a recorded log.
            runningSince = at.flatMap(Self.parseDate) ?? (live ? Date() : nil)
            issues = []; output = []; metrics = []; skipReason = nil
        case let .caseFinished(name, outcome, seconds):
            record(running.flatMap { $0.key == name.key ? $0 : nil } ?? withModule(name), outcome: outcome, duration: seconds)
        case let .issue(name, location, message, unexpected):
            guard name.key == running?.key || running == nil else { break }
            issues.append(TestIssue(kind: unexpected ? .error : .failure, message: message, location: location))
            lastWasIssue = true
            return
        case let .skip(_, _, reason):
            skipReason = reason
        case let .measured(_, metric):
            metrics.append(metric)
        case let .fatalError(location, message):
            inCrash = true
            crash.fatalError = "\(location): Fatal error" + (message.isEmpty ? "" : ": \(message)")
        case let .programCrashed(reason):
            inCrash = true
            crash.reason = reason
        case .crashedThread:
            inCrash = true
            inCrashedThread = true
        case let .frame(text, location, isUser):
            guard inCrashedThread else { break }
            let userCode = isUser && location != nil && !text.contains("<compiler-generated>")
            // Frames in user code, and frames that name the running test (even compiler-generated ones).
            if userCode || running.map({ text.contains("\($0.className).\($0.method)(") }) == true {
                crash.frames.append(text)
            }
            if userCode, crash.location == nil, let location, !location.file.contains("/.build/") { crash.location = location }
        case let .processSignal(signal):
            // SwiftPM reports the end of a crashed test process: what follows is another process.
            crash.signal = signal
            if running != nil {
                finish(signal: signal, timedOut: false)
            } else if inCrash {
                orphanCrashes.append(crash)
                crash = CrashEvidence(); inCrash = false; inCrashedThread = false
            }
        case .executed:
            sawSummary = true
        case let .suiteStarted(name):
            suite = (name, nil)
        case .suiteFinished:
            suite = nil
        }
        lastWasIssue = false
    }

    /// Ends the input: a test still running died with the process (crash) or was killed (timeout).
    package mutating func finish(signal: Int?, timedOut: Bool, timeout: Double? = nil) {
        guard let name = running else { return }
        if crash.signal == nil { crash.signal = signal }
        let elapsed = live ? runningSince.map { Date().timeIntervalSince($0) } : nil
        if timedOut {
            var evidence = crash
            evidence.reason = CrashEvidence.timeoutReason(timeout)
            record(name, outcome: .timedOut, duration: timeout ?? elapsed, evidence: evidence)
        } else {
            record(name, outcome: .crashed, duration: elapsed, evidence: crash)
        }
    }

    /// True when the process crashed during a test.
    package var crashedTest: XCTestName? { inCrash ? running : nil }

    /// Crash evidence seen while no XCTest test was running (a Swift Testing run's crash), latest last.
    package private(set) var orphanCrashes: [CrashEvidence] = []

    /// The latest crash seen while no XCTest test was running.
    package var crashOutsideTests: CrashEvidence? { running == nil && inCrash ? crash : orphanCrashes.last }

    private mutating func finishRunningAsInterrupted() {
        guard running != nil else { return }
        // A new test started without an end line for the previous one: keep what we know.
        finish(signal: nil, timedOut: false)
    }

    private mutating func record(_ name: XCTestName, outcome: TestOutcome, duration: Double?, evidence: CrashEvidence? = nil) {
        let module = name.module
        var crashEvidence = evidence
        crashEvidence?.frames = Array((evidence?.frames ?? []).prefix(12))
        var result = TestCaseResult(
            id: "\(module.map { $0 + "." } ?? "")\(name.className)/\(name.method)", framework: .xctest,
            module: module, suite: name.className, name: name.method, outcome: outcome,
            skipReason: outcome == .skipped ? (skipReason ?? "Test skipped") : nil,
            duration: duration, startedAt: runningSince, issues: issues, output: output, metrics: metrics,
            crash: crashEvidence)
        if outcome == .passed, issues.contains(where: \.isFailure) { result.outcome = .failed }
        result.location = result.primaryLocation
        results.append(result)
        finished.insert(result.id)
        running = nil
        runningSince = nil
        issues = []; output = []; metrics = []; skipReason = nil
        crash = CrashEvidence()
        inCrash = false
        inCrashedThread = false
    }

    /// The name with its module: the one it names, else the test list's (`XCTestModules.module(of:)`).
    private mutating func withModule(_ name: XCTestName) -> XCTestName {
        guard name.module == nil else { return name }
        var named = name
        let current = suite?.className == name.className ? suite?.module : nil
        named.module = moduleForClass.module(of: name, current: current, finished: finished)
        if suite?.className == name.className { suite?.module = named.module }
        return named
    }

    /// XCTest prints local time without a zone: `yyyy-MM-dd HH:mm:ss.SSS`.
    static func parseDate(_ text: String) -> Date? {
        dateFormatter.withLock { $0.date(from: text.trimmingCharacters(in: .whitespaces)) }
    }

    /// One formatter for every line (creating one per line dominated parsing); under a lock, as parsers
    /// on several threads share it.
    private static let dateFormatter: Locked<DateFormatter> = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        return Locked(formatter)
    }()

    /// Parses a whole log.
    package static func parse(log: String, moduleForClass: XCTestModules = [:], processSignal: Int? = nil) -> [TestCaseResult] {
        var parser = XCTestConsoleParser(moduleForClass: moduleForClass)
        for line in log.split(separator: "\n", omittingEmptySubsequences: false) { parser.consume(String(line)) }
        parser.finish(signal: processSignal, timedOut: false)
        return parser.results
    }
}

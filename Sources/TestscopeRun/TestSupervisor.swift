import Foundation
import TestscopeExecution
import TestscopeTestResults

/// What `run` and `flaky` legitimately do differently when a test process dies early; everything
/// else (parsing, the watchdog, the kill, the blame) is the same code.
package struct SupervisionPolicy: Sendable, Equatable {
    /// Which tests the next process gets after one was cut short by a crash or a kill.
    package enum Relaunch: Sendable, Equatable {
        /// One process only (flaky's repetition runs of Swift Testing's own order).
        case never
        /// Every test of the launch that has not reported (`run`: the set of tests is the point, and
        /// parallel Swift Testing leaves unreported tests anywhere in the list).
        case everyUnreported
        /// The tests after the last one that reported (`flaky`: the order is the experiment, so a test
        /// skipped by the crash stays unrun). When the process died between tests, the first test that
        /// did not report is blamed, so the order moves on. A process that exits without a crash before
        /// the end of its order is relaunched for the rest too: its tests were never run.
        case restOfOrder
    }

    package var relaunch: Relaunch
    /// Whether a crash whose backtrace names no in-flight Swift Testing test is blamed on the first one
    /// in flight: right when tests run one at a time (`flaky`), a guess when they run in parallel (`run`).
    package var blameFirstInFlight: Bool

    package init(relaunch: Relaunch, blameFirstInFlight: Bool) {
        self.relaunch = relaunch
        self.blameFirstInFlight = blameFirstInFlight
    }
}

/// How one process is started for some of the tests (the launch strategy returns one per process).
package struct TestLaunch: Sendable {
    package var arguments: [String]
    /// Added to (or, with nil, removed from) the supervisor's environment.
    package var environment: [String: String?]
    /// The Swift Testing event stream the process writes; read live for the watchdog and the blame.
    package var eventStream: URL?
    /// Raw profiles go to `<profileDirectory>/<profilePrefix>-%p.profraw` (when both are set).
    package var profilePrefix: String?
    /// Files removed once the process has been read (an order file, a scratch event stream).
    package var temporaryFiles: [URL]

    package init(arguments: [String], environment: [String: String?] = [:], eventStream: URL? = nil,
                profilePrefix: String? = nil, temporaryFiles: [URL] = []) {
        self.arguments = arguments
        self.environment = environment
        self.eventStream = eventStream
        self.profilePrefix = profilePrefix
        self.temporaryFiles = temporaryFiles
    }
}

/// One test process's end as the supervisor saw it.
package struct SupervisedProcess: Sendable {
    /// The tests this process was launched for.
    package var tests: [String]
    /// XCTest's results, then Swift Testing's, then the blamed Swift Testing test's (parameterized
    /// cases each have a result of their own).
    package var results: [TestCaseResult]
    /// The test the early death is blamed on (it has a `crashed` or `timed-out` result).
    package var blamed: String?
    /// True when the process was killed, crashed, or ended while a test ran.
    package var interrupted: Bool
    /// True when the watchdog killed it for the time limit.
    package var timedOut: Bool
    /// Crash evidence printed while no XCTest test ran.
    package var crash: CrashEvidence?
    package var result: ProcessResult
    /// The last lines of output (for an error when the binary ran nothing).
    package var lastLines: [String]
    /// Lines of its event stream that could not be trusted and were skipped.
    package var warnings: [Diagnostic] = []

    /// Of `tests`, those with a result, in launch order (XCTest results without a module, of classes the
    /// test list did not know, are also matched by `Class.method`).
    package var reported: [String] {
        let ids = Set(results.map(\.id))
        let xcKeys = Set(results.filter { $0.framework == .xctest && $0.module == nil }.map { "\($0.suite ?? "").\($0.name)" })
        return tests.filter { ids.contains($0) || xcKeys.contains(TestSupervisor.key(ofSpecifier: $0)) }
    }
}

/// Every process of a supervised run, and the tests that never ran.
package struct SupervisedRun: Sendable {
    package var processes: [SupervisedProcess] = []
    /// The tests the relaunch policy gave up on (never started, or never reported).
    package var notRun: [String] = []
    /// How often the binary was started again after a crash or a kill.
    package var relaunches: Int { max(0, processes.count - 1) }
}

/// The one supervisor of test processes (for `run` and `flaky`): starts the test binary in a process
/// group of its own with Testscope's environment, parses its output live (XCTest console, Swift
/// Testing event stream), kills the group when a test runs past the time limit, blames the test a
/// crash or a kill interrupted, and relaunches the binary for the tests the policy says are left.
package struct TestSupervisor: Sendable {
    package var binary: URL
    /// The environment of every process (see `testEnvironment`).
    package var environment: [String: String]
    package var policy: SupervisionPolicy
    /// Per-test time limit in seconds.
    package var timeout: Double?
    /// Which module an XCTest class is in, for XCTest lines that omit the module (Linux).
    package var moduleForClass: XCTestModules
    /// Where raw profiles go (`LLVM_PROFILE_FILE`), for launches with a `profilePrefix`.
    package var profileDirectory: URL?
    /// Show the processes' output on our stdout.
    package var echo: Bool
    /// Every line of output (a log).
    package var onLine: (@Sendable (String) -> Void)?
    /// Messages for the user (a test killed for its time limit).
    package var note: (@Sendable (String) -> Void)?
    /// Warnings for the user (a test that left a process running).
    package var warn: (@Sendable (Diagnostic) -> Void)?
    /// Tests starting and finishing as the live parsers see them (the live view's status line and failures).
    package var onTest: (@Sendable (LiveTestEvent) -> Void)?

    /// One watchdog interval for every run: short enough that a killed test's reported time is close
    /// to the limit, long enough to cost nothing.
    static let watchdogInterval = 0.1

    package init(binary: URL, environment: [String: String], policy: SupervisionPolicy, timeout: Double?,
                moduleForClass: XCTestModules = [:], profileDirectory: URL? = nil, echo: Bool = false,
                onLine: (@Sendable (String) -> Void)? = nil, note: (@Sendable (String) -> Void)? = nil,
                warn: (@Sendable (Diagnostic) -> Void)? = nil, onTest: (@Sendable (LiveTestEvent) -> Void)? = nil) {
        self.binary = binary
        self.environment = environment
        self.policy = policy
        self.timeout = timeout
        self.moduleForClass = moduleForClass
        self.profileDirectory = profileDirectory
        self.echo = echo
        self.onLine = onLine
        self.note = note
        self.warn = warn
        self.onTest = onTest
    }

    /// `base` with what the test binary needs: backtraces without a prompt (unless set), Swift Testing's
    /// full event records, and no colours when `noColor` (as SwiftPM does when output is not a terminal).
    package static func testEnvironment(_ base: [String: String], noColor: Bool) -> [String: String] {
        var env = base
        if env["SWIFT_BACKTRACE"] == nil { env["SWIFT_BACKTRACE"] = "interactive=no" }
        env["SWT_EXPERIMENTAL_EVENT_STREAM_FIELDS_ENABLED"] = "1"
        if noColor { env["NO_COLOR"] = "1" }
        return env
    }

    /// Runs `tests`: one process from `launch(tests, 0)`, then, while the policy leaves tests and the
    /// last process made progress, one more from `launch(rest, n)`. `inspect` sees each process before
    /// the policy does, and may throw to stop.
    package func run(_ tests: [String], launch: (_ tests: [String], _ attempt: Int) throws -> TestLaunch,
                    inspect: ((SupervisedProcess) throws -> Void)? = nil) throws -> SupervisedRun {
        var run = SupervisedRun()
        var remaining = tests
        while !remaining.isEmpty {
            var process = try runProcess(remaining, launch: launch(remaining, run.processes.count))
            try inspect?(process)
            var reported = process.reported
            if policy.relaunch == .restOfOrder, process.interrupted, process.blamed == nil, reported.count < remaining.count,
               let first = remaining.first(where: { !reported.contains($0) }) {
                process.results.append(Self.unreportedResult(first, process: process, timeout: timeout))
                process.blamed = first
                reported = process.reported
            }
            run.processes.append(process)
            let unreported = remaining.filter { !reported.contains($0) }
            switch policy.relaunch {
            case .never:
                run.notRun += unreported
                remaining = []
            case .everyUnreported:
                let again = process.interrupted && !reported.isEmpty
                if !again { run.notRun += unreported }
                remaining = again ? unreported : []
            case .restOfOrder:
                guard let last = reported.last.flatMap({ remaining.firstIndex(of: $0) }) else {
                    run.notRun += remaining
                    remaining = []
                    break
                }
                run.notRun += remaining[...last].filter { !reported.contains($0) }
                remaining = Array(remaining[(last + 1)...])
            }
        }
        return run
    }

    /// Starts one process, parses and watches it until it ends, and reads what it reported. When it
    /// has ended, the processes it left running are killed (and a warning names the test that started
    /// them), so that they neither hold its output pipe open nor outlive the run.
    func runProcess(_ tests: [String], launch: TestLaunch) throws -> SupervisedProcess {
        // An interrupt removes the files of a process still running (its event stream is half-written).
        let transient = launch.temporaryFiles + (launch.eventStream.map { [$0] } ?? [])
        for file in transient { Interruption.removeOnInterrupt(file) }
        defer {
            for file in launch.temporaryFiles { try? FileManager.default.removeItem(at: file) }
            for file in transient { Interruption.forget(file) }
        }
        var env = environment
        for (name, value) in launch.environment { env[name] = value }
        if let profileDirectory, let prefix = launch.profilePrefix {
            env["LLVM_PROFILE_FILE"] = profileDirectory.appendingPathComponent("\(prefix)-%p.profraw").path
        }
        let live = LiveProcess(moduleForClass: moduleForClass.narrowed(to: tests), events: launch.eventStream, timeout: timeout, note: note, onTest: onTest)
        let done = DispatchSemaphore(value: 0)
        let interval = Self.watchdogInterval
        let watchdog = Thread { while done.wait(timeout: .now() + interval) == .timedOut { live.tick() } }
        watchdog.start()
        let onLine = self.onLine
        let leftovers = Locked<[ProcessTree.Leftover]>([])
        let result: ProcessResult
        do {
            defer { done.signal() }
            result = try ProcessRunner.stream(
                binary, launch.arguments, environment: env, echo: echo, mergeStderr: true, newProcessGroup: true,
                onStart: { pid in live.started(pid: pid) },
                afterExit: { pid in
                    live.ended()  // reaped: the watchdog must not signal its pid any more
                    leftovers.withLock { $0 = ProcessTree.killLeftovers(ofGroup: pid) }
                },
                onLine: { line in
                    onLine?(line)
                    live.consume(line)
                })
        }
        live.ended()
        for warning in live.leftBehind(leftovers.withLock { $0 }, binary: binary.lastPathComponent) { warn?(warning) }
        return live.collect(result, tests: tests, blameFirstInFlight: policy.blameFirstInFlight)
    }

    /// The result of a test blamed because the process died after the previous test and before it reported.
    static func unreportedResult(_ id: String, process: SupervisedProcess, timeout: Double?) -> TestCaseResult {
        let isXCTest = id.contains("/") && !id.hasSuffix(")")
        let parts = SwiftTestingEventStream.split(id)
        var crash = process.crash ?? CrashEvidence()
        if crash.reason == nil { crash.reason = "the test process died before this test reported a result" }
        return TestCaseResult(id: id, framework: isXCTest ? .xctest : .swiftTesting, module: parts.module, suite: parts.suite,
                              name: parts.name, outcome: process.timedOut ? .timedOut : .crashed,
                              duration: process.timedOut ? timeout : nil, crash: crash)
    }

    /// `Module.Class/test` → `Class.test`, the key XCTest's console lines give.
    static func key(ofSpecifier specifier: String) -> String {
        guard let slash = specifier.firstIndex(of: "/") else { return specifier }
        let qualified = specifier[..<slash]
        let className = qualified.firstIndex(of: ".").map { qualified[qualified.index(after: $0)...] } ?? qualified
        return "\(className).\(specifier[specifier.index(after: slash)...])"
    }

    /// `--filter` arguments that select exactly these Swift Testing tests (and their parameterized cases).
    package static func swiftTestingFilters(_ ids: [String]) -> [String] {
        ids.flatMap { ["--filter", "^" + NSRegularExpression.escapedPattern(for: $0) + "(/|$)"] }
    }
}

import Foundation
import TestscopeExecution
import TestscopeTestResults

/// What to run and where to put the raw artifacts.
package struct TestRunRequest: Sendable {
    package var swift: URL
    /// `--package-path`, `-c`, `--scratch-path`: given to every swift invocation.
    package var buildArguments: [String]
    package var filters: [String]
    package var skips: [String]
    /// Arguments after `--`: for `swift build` (the build and `--show-bin-path`), except the library
    /// switches (`--disable-xctest`/`--disable-swift-testing`: which libraries run; their `--enable-` forms)
    /// and `--parallel`/`--no-parallel` (`--no-parallel`: Swift Testing one test at a time), which are
    /// `swift test`'s and applied by the coordinator (`splitExtraArguments`).
    package var extraArguments: [String]
    /// Logs, event streams and relaunch profiles go here.
    package var artifacts: URL
    /// Per-test time limit in seconds.
    package var testTimeout: Double?
    package var echo: Bool
    /// `--shard K/N`: only this part of the selected tests (`ShardPartition`), by these durations when given.
    package var shard: TestShard?
    package var shardDurations: [String: Double]?
    /// The generated entry point to build the tests with (`--experimental-test-entry-point-path`:
    /// `InstrumentedBuild`'s); nil: SwiftPM's.
    package var entryPoint: URL?
    /// `run --per-test-coverage`: the folder the entry point's per-test counts go to
    /// (`TESTSCOPE_PER_TEST_DIR`; emptied before the run).
    package var perTestDirectory: URL?
    /// Only these of the tests --filter/--skip left (before the shard is cut); the others are reported skipped.
    package var testSelection: TestSelection?

    package init(swift: URL, buildArguments: [String], filters: [String] = [], skips: [String] = [],
                extraArguments: [String] = [], artifacts: URL, testTimeout: Double? = nil, echo: Bool = true) {
        self.swift = swift
        self.buildArguments = buildArguments
        self.filters = filters
        self.skips = skips
        self.extraArguments = extraArguments
        self.artifacts = artifacts
        self.testTimeout = testTimeout
        self.echo = echo
    }
}

/// What a test run left behind.
package struct TestRunOutput: Sendable {
    package var results: TestRunResults
    /// The test binary's exit status (the last failing process's), or the build's when it failed.
    package var testBinaryStatus: Int32
    /// Why nothing ran: the build's stderr, or "no tests found".
    package var testBinaryStderr: String
    package var binPath: URL?
    package var testBinary: URL?
    /// Raw profiles of every process that exited (SwiftPM's and the relaunches').
    package var profiles: [URL]
    /// True when `swift build --build-tests` failed (nothing ran).
    package var buildFailed: Bool
    /// The tests this run was to run (after --filter/--skip, the shard and the disabled libraries).
    package var selected = TestList()
    /// How many tests the shards were cut from (after --filter/--skip and the disabled libraries).
    package var partitioned = 0
    /// True when tests ran at the same time: Swift Testing's, unless `--no-parallel` (XCTest's run one at a time).
    package var testsRanInParallel = false
    /// Every test the binary lists (`rerun` needs their modules).
    package var listed = TestList()
}

/// What a live view hears from `run`: every line of the build, the tests selected to run (before the
/// first starts), and the tests starting and finishing.
package struct RunObserver: Sendable {
    package var buildLine: @Sendable (String) -> Void
    package var testsSelected: @Sendable ([String]) -> Void
    package var test: @Sendable (LiveTestEvent) -> Void
    /// The test binary, as soon as the build made it (before the tests run).
    package var built: (@Sendable (URL) -> Void)?

    package init(buildLine: @escaping @Sendable (String) -> Void, testsSelected: @escaping @Sendable ([String]) -> Void,
                test: @escaping @Sendable (LiveTestEvent) -> Void) {
        self.buildLine = buildLine
        self.testsSelected = testsSelected
        self.test = test
    }
}

/// Runs the tests with coverage the way `swift test --enable-code-coverage` does (build with
/// coverage, then the test binary for XCTest and for Swift Testing, with `LLVM_PROFILE_FILE`), but
/// runs the binary itself under a `TestSupervisor`, so that its output is parsed live (SwiftPM holds
/// piped test output back until the process ends), a test past the time limit is killed, and the
/// binary is relaunched for the tests a crash or a kill left unrun.
package struct TestRunCoordinator: Sendable {
    let request: TestRunRequest
    let note: @Sendable (String) -> Void
    let warn: @Sendable (Diagnostic) -> Void
    let environment: [String: String]
    /// The live view, when there is one.
    package var observer: RunObserver?

    /// `run`'s policy: every selected test that did not report runs again; Swift Testing runs in
    /// parallel, so a crash that names no test is not blamed on the first one in flight.
    package static let policy = SupervisionPolicy(relaunch: .everyUnreported, blameFirstInFlight: false)

    package init(request: TestRunRequest, note: @escaping @Sendable (String) -> Void,
                warn: @escaping @Sendable (Diagnostic) -> Void = { _ in }) {
        self.request = request
        self.note = note
        self.warn = warn
        // As SwiftPM does: no colours from the test process when our output is not a terminal.
        var environment = TestSupervisor.testEnvironment(ProcessInfo.processInfo.environment, noColor: isatty(STDOUT_FILENO) == 0)
        // The entry point's switches are Testscope's to set: an order or a per-test folder left in the
        // caller's environment would make the run something else.
        for variable in [EntryPointSource.orderFileVariable, EntryPointSource.orderVariable, EntryPointSource.perTestDirectoryVariable] {
            environment.removeValue(forKey: variable)
        }
        if let directory = request.perTestDirectory { environment[EntryPointSource.perTestDirectoryVariable] = directory.path }
        self.environment = environment
    }

    package func run(log: AtomicFileWriter) throws -> TestRunOutput {
        PhaseTimer.mark("run")
        let started = Date().addingTimeInterval(-1)
        var results = TestRunResults(startedAt: started)
        // 1. Build the tests with coverage, as `swift test --enable-code-coverage` would.
        let (buildExtra, libraries) = Self.splitExtraArguments(request.extraArguments)
        // `-- --no-parallel`, as `swift test --no-parallel`: Swift Testing runs one test at a time, so each
        // test's recorded time is its own (in parallel, a test's end waits for a thread of the pool).
        let serialSwiftTesting = request.extraArguments.contains("--no-parallel")
        // Lines come from more than one reader thread: one writer at a time.
        let logged = Locked(log)
        let writeLine: @Sendable (String) -> Void = { line in logged.withLock { try? $0.write(line + "\n") } }
        // `swift build --show-bin-path` takes no lock on the build folder: asked while the build runs, its
        // SwiftPM start-up (0.26 s of CPU on swift-algorithms, most of a warm run's overhead over
        // `swift test`) is hidden behind the build's instead of following it.
        let binPathQuery = Locked<Result<URL, any Error>?>(nil)
        let (swift, binArguments) = (request.swift, request.buildArguments + buildExtra)
        let binPathTask = BlockingTask {
            let result = Result { try BuildArtifacts.binPath(swift: swift, buildArguments: binArguments) }
            binPathQuery.withLock { $0 = result }
        }
        let entryPoint = request.entryPoint.map { ["--experimental-test-entry-point-path", $0.path] } ?? []
        let observer = self.observer
        // In the caller's environment, not the tests': SwiftPM plans the build again when its environment
        // changes (15 s on hummingbird), and `flaky` builds the same folder in the caller's environment.
        let buildCommand = ["build", "--build-tests", "--enable-code-coverage"] + entryPoint + request.buildArguments + buildExtra
        let build = try BuildArtifacts.build(note: note, binPath: { binPathTask.wait(); return try? binPathQuery.withLock { $0 }?.get() }) { watch in
            try ProcessRunner.stream(request.swift, buildCommand, environment: ProcessInfo.processInfo.environment, echo: request.echo, onLine: { line in
                writeLine(line)
                observer?.buildLine(line)
                watch(line)
            })
        }
        binPathTask.wait()
        PhaseTimer.mark("build")
        guard build.succeeded else {
            return TestRunOutput(results: results, testBinaryStatus: build.status, testBinaryStderr: build.stderrText,
                                 binPath: nil, testBinary: nil, profiles: [], buildFailed: true)
        }
        let binPath = try binPathQuery.withLock { $0 }!.get()
        guard let binary = BuildArtifacts.testBinary(in: binPath) else {
            return TestRunOutput(results: results, testBinaryStatus: 0, testBinaryStderr: "no tests found", binPath: binPath,
                                 testBinary: nil, profiles: [], buildFailed: false)
        }
        observer?.built?(binary)
        // 2. The tests, from the binary itself; SwiftPM's --filter/--skip semantics.
        let all = try TestLister.list(binary: binary, environment: environment)
        PhaseTimer.mark("list tests")
        // The listing, as `swift test list` prints it: `report --test-list` gives the run's log the
        // module names XCTest's Linux lines lack, so re-importing the artifacts names tests as the run did.
        try AtomicFileWriter.write((all.xctest + all.swiftTesting).map { $0 + "\n" }.joined(),
                                   to: request.artifacts.appendingPathComponent("test-list.txt"))
        let filtered = all.applying(filters: request.filters, skips: request.skips)
        var wanted = TestList(xctest: libraries.xctest ? filtered.xctest : [], swiftTesting: libraries.swiftTesting ? filtered.swiftTesting : [])
        // A selection narrows what the shards are cut from; the tests it leaves out are reported skipped.
        let notSelected = request.testSelection?.split(wanted)
        if let notSelected { wanted = notSelected.run }
        let selected = request.shard.map { ShardPartition.tests(of: wanted, shard: $0, durations: request.shardDurations) } ?? wanted
        if let shard = request.shard {
            note("shard \(shard): \(selected.xctest.count + selected.swiftTesting.count) of \(wanted.xctest.count + wanted.swiftTesting.count) test(s)"
                 + (request.shardDurations == nil ? "" : ", balanced by the durations of --shard-timings"))
        }
        observer?.testsSelected(selected.xctest + selected.swiftTesting)
        let profileDir = request.artifacts.appendingPathComponent("profiles")
        try? FileManager.default.removeItem(at: profileDir)
        // Removed if the run is interrupted: the profiles of a run that never reports are of no use.
        try Interruption.creatingTemporary(profileDir) { try FileManager.default.createDirectory(at: profileDir, withIntermediateDirectories: true) }
        defer { Interruption.forget(profileDir) }
        if let directory = request.perTestDirectory {
            try? FileManager.default.removeItem(at: directory)
            try Interruption.creatingTemporary(directory) { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        }
        defer { if let directory = request.perTestDirectory { Interruption.forget(directory) } }
        // A shard or a selection names its tests, as a relaunch does; the first launch of a whole run takes SwiftPM's filters.
        let named = request.shard != nil || request.testSelection != nil
        let launched = try launch(selected, listed: all, binary: binary, environment: environment, artifacts: request.artifacts,
                                  profileDirectory: profileDir, named: named, serialSwiftTesting: serialSwiftTesting,
                                  onLine: writeLine, onTest: observer?.test)
        let status = launched.status
        results.merge(launched.results.results)
        results.warnings += launched.results.warnings
        results.relaunches += launched.results.relaunches
        if let notSelected {
            results.merge(TestSelection.skippedResults(notSelected.skipped, of: filtered))
            results.notSelected = notSelected.skipped
        }
        var output = TestRunOutput(results: results, testBinaryStatus: status, testBinaryStderr: "", binPath: binPath,
                                   testBinary: binary, profiles: BuildArtifacts.profiles(in: profileDir, since: started).raw,
                                   buildFailed: false, selected: selected, partitioned: wanted.xctest.count + wanted.swiftTesting.count)
        output.listed = all
        output.testsRanInParallel = !serialSwiftTesting && !selected.swiftTesting.isEmpty
        return output
    }

    /// Runs `tests` again in the binary `run` built (`run`'s retries of failures): XCTest then Swift Testing,
    /// named as a shard's are, their event streams and profiles into `folder` (the caller's to remove: a
    /// retry's coverage is not the run's), without per-test coverage and without the log.
    package func rerun(_ tests: TestList, binary: URL, listed: TestList, folder: URL) throws -> TestRunResults {
        var environment = self.environment
        environment.removeValue(forKey: EntryPointSource.perTestDirectoryVariable)
        let profiles = folder.appendingPathComponent("profiles")
        try FileManager.default.createDirectory(at: profiles, withIntermediateDirectories: true)
        return try launch(tests, listed: listed, binary: binary, environment: environment, artifacts: folder, profileDirectory: profiles,
                          named: true, serialSwiftTesting: request.extraArguments.contains("--no-parallel"), onLine: { _ in }, onTest: nil).results
    }

    /// XCTest, then Swift Testing, each relaunched for the tests a crash or a kill left unrun; `named`: every
    /// launch names its tests (else the first launch of each library takes SwiftPM's --filter/--skip).
    /// The status is the last failing process's (0: none failed).
    private func launch(_ selected: TestList, listed: TestList, binary: URL, environment: [String: String], artifacts: URL,
                        profileDirectory: URL, named: Bool, serialSwiftTesting: Bool, onLine: @escaping @Sendable (String) -> Void,
                        onTest: (@Sendable (LiveTestEvent) -> Void)?) throws -> (results: TestRunResults, status: Int32) {
        let (request, note) = (self.request, self.note)
        let supervisor = TestSupervisor(
            binary: binary, environment: environment, policy: Self.policy, timeout: request.testTimeout,
            moduleForClass: listed.moduleForClass, profileDirectory: profileDirectory, echo: request.echo,
            onLine: onLine, note: note, warn: warn, onTest: onTest)
        var status: Int32 = 0
        let unfiltered = request.filters.isEmpty && request.skips.isEmpty && !named
        let xctest = try supervisor.run(selected.xctest) { tests, attempt in
            if attempt > 0 { note("relaunching the test binary for \(tests.count) XCTest test(s) that had not run") }
            let everything = attempt == 0 && unfiltered
            return TestLaunch(arguments: everything ? [] : [tests.joined(separator: ",")], profilePrefix: "xctest")
        }
        for process in xctest.processes where !process.result.succeeded { status = process.result.status }
        PhaseTimer.mark("xctest")
        let swiftTesting = try supervisor.run(selected.swiftTesting) { tests, attempt in
            if attempt > 0 { note("relaunching the test binary for \(tests.count) Swift Testing test(s) that had not run") }
            let file = artifacts.appendingPathComponent(
                attempt == 0 ? "swift-testing-events.jsonl" : "swift-testing-events-\(attempt + 1).jsonl")
            try? FileManager.default.removeItem(at: file)
            var args = ["--testing-library", "swift-testing", "--event-stream-output-path", file.path]
            if serialSwiftTesting { args.append("--no-parallel") }
            if attempt == 0 && !named {
                for f in request.filters { args += ["--filter", f] }
                for s in request.skips { args += ["--skip", s] }
            } else {
                args += TestSupervisor.swiftTestingFilters(tests)
            }
            return TestLaunch(arguments: args, eventStream: file, profilePrefix: "swift-testing")
        }
        PhaseTimer.mark("swift testing")
        // Swift Testing exits 69 (EX_UNAVAILABLE) when no test matched.
        for process in swiftTesting.processes where !process.result.succeeded
            && !(process.result.status == 69 && !process.result.terminatedBySignal) {
            status = process.result.status
        }
        var results = TestRunResults()
        for process in xctest.processes + swiftTesting.processes {
            results.merge(process.results)
            results.warnings += process.warnings
        }
        results.relaunches = xctest.relaunches + swiftTesting.relaunches
        return (results, status)
    }

    /// Arguments after `--` go to `swift build`, except the testing-library switches, which choose the phases.
    static func splitExtraArguments(_ arguments: [String]) -> (build: [String], libraries: (xctest: Bool, swiftTesting: Bool)) {
        var build: [String] = []
        var xctest = true, swiftTesting = true
        for argument in arguments {
            switch argument {
            case "--disable-xctest": xctest = false
            case "--disable-swift-testing": swiftTesting = false
            case "--enable-xctest", "--enable-swift-testing", "--parallel", "--no-parallel": break
            default: build.append(argument)
            }
        }
        return (build, (xctest, swiftTesting))
    }
}

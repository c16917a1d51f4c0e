import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeHistory
import TestscopeReports
import TestscopeTerminal
import TestscopeRun
import TestscopeTestResults

extension Pipeline {
    /// `testscope run`: builds the tests with coverage, runs them under the supervisor, merges and
    /// exports the profiles, and writes the coverage and test reports.
    public func run(_ request: RunRequest) throws -> Outcome {
        try request.validate()
        // The package root is found from a subfolder as SwiftPM does; the summary goes where the reports went.
        let root = try Self.packageRoot(request.packageRoot)
        // --affected: the selection, made before anything is written (--why answers and stops here).
        guard let request = try preparingSelection(request, root: root) else { return Outcome() }
        // A bad --history file fails here, before the build; its runs give the Tests page's sparklines.
        let history = try HistoryRecording.prepare(request.settings.history, command: "run", timeout: historyTimeout)
        let setup = try RunSetup(request, root: root, environment: environment)
        defer { if let directory = setup.perTestDirectory { try? FileManager.default.removeItem(at: directory) } }
        // The earlier run's artifacts stay in place until this run's are complete (`commit`).
        let staging = try RunStaging(output: setup.output)
        defer { staging.discard() }
        var outcome = try report(try runTests(setup, staging: staging), setup: setup, staging: staging, history: history)
        let output = setup.output
        try SummaryReporting(outputs: setup.outputs, terminal: terminal, environment: environment)
            .write(&outcome, packageRoot: root, output: output)
        // Nothing ran (the build failed): no run to remember.
        if let history, outcome.tests != nil || outcome.coverage != nil {
            let (record, store) = try recordHistory(outcome, command: "run", packageRoot: root, history: history.url, output: output, startedAt: history.startedAt,
                                           toolchain: outcome.tests?.properties.first { $0.name == "swift" }?.value)
            // Only a run of every test records a map: a selective run's would hold only what it ran (the next
            // selection diffs from the full run's map again, which still sees this change).
            if let map = outcome.impactMap, request.testSelection == nil { saveImpactMap(map, runUUID: record.run.uuid, history: store) }
            if setup.outputs.writesPages { try writeHistoryPage(history: store, packageRoot: root, output: output, command: "run", into: &outcome) }
        }
        if outcome.tests != nil || outcome.coverage != nil {
            var screen = FinalScreen(terminal: terminal, settings: setup.settings)
            screen.failuresShownLive = LiveView.mode(for: terminal) == .quiet
            try screen.show(outcome, packageRoot: root, output: output)
        }
        return outcome
    }

    /// What `run` needs before the build, each part checked there: a broken --templates folder, a
    /// --diff-base git cannot find, a broken --baseline, a --shard-timings file that is not a
    /// tests.json are reported before the tests run, not after.
    struct RunSetup {
        let request: RunRequest
        let root: URL
        /// The request's settings, with the build folder of this run (`scratchPath`) and, once the
        /// tests ran, what a negative count can come from.
        var settings: ReportSettings
        let toolchain: Toolchain
        let swift: URL
        let outputs: Outputs
        let output: OutputFolder
        /// The renderer the report uses (the templates are parsed once).
        let html: HTMLReport?
        let pullRequest: PullRequestContext?
        let durations: [String: Double]?
        /// `--package-path`, `-c`, the build folder and the counters' flags: every swift call's.
        let buildArguments: [String]
        /// Testscope's generated entry point (the atomic build's; nil: SwiftPM's runner).
        let entryPoint: URL?
        /// `--per-test-coverage`: the folder the entry point's recorder writes into.
        let perTestDirectory: URL?

        init(_ request: RunRequest, root: URL, environment: [String: String]) throws {
            (self.request, self.root) = (request, root)
            settings = request.settings
            toolchain = try settings.toolchain()
            guard let swift = toolchain.swift else {
                throw ExecutionError.toolNotFound(tool: "swift", searched: ["PATH"])
            }
            self.swift = swift
            outputs = Outputs(settings)
            output = settings.outputFolder(packageRoot: root)
            html = outputs.writesPages ? try settings.htmlReport() : nil
            pullRequest = try PullRequestContext.prepare(settings.pullRequest, packageRoot: root, environment: environment)
            durations = try request.shardTimings.map(ShardTimings.read)
            try output.prepare()
            // A shard manifest describes the run that wrote it: an earlier shard's must not outlive this run.
            try? FileManager.default.removeItem(at: output.url.appendingPathComponent(ShardManifest.fileName))
            PerTestReporting.removeStale(in: output)
            (buildArguments, settings.scratchPath) = Self.build(request, root: root)
            // Testscope's entry point serves the atomic build (`run`, per-test coverage and `flaky` share it).
            entryPoint = request.atomicCounters || request.perTestCoverage
                ? try PerTestReporting.entryPoint(swift: swift, packageRoot: root, scratchPath: settings.scratchPath ?? root.appendingPathComponent(".build"),
                                                  required: request.perTestCoverage, environment: environment)
                : nil
            perTestDirectory = request.perTestCoverage ? output.url.appendingPathComponent("per-test-work") : nil
        }

        /// The build's arguments and its folder (nil: SwiftPM's own).
        static func build(_ request: RunRequest, root: URL) -> (arguments: [String], scratchPath: URL?) {
            var buildArguments = ["--package-path", root.path]
            if let configuration = request.selection.configuration { buildArguments += ["-c", configuration] }
            let scratchPath: URL?
            if request.atomicCounters {
                // Testscope's one build (`InstrumentedBuild`: atomic counters, its entry point), which
                // `run --per-test-coverage` and `flaky` share; `--no-atomic-counters` builds like `swift test`.
                scratchPath = request.selection.scratchPath ?? InstrumentedBuild.defaultScratchPath(packageRoot: root)
                buildArguments += InstrumentedBuild.atomicCounterArguments
            } else {
                scratchPath = request.selection.scratchPath
            }
            // Every swift call (the build and `describe`) uses this build folder.
            if let scratchPath { buildArguments += ["--scratch-path", scratchPath.path] }
            return (buildArguments, scratchPath)
        }
    }

    /// What running the tests left: the run, its log, the mapping decoded meanwhile.
    struct RanTests {
        let run: TestRunOutput
        let log: URL
        let prefetch: MappingPrefetch?
        /// When the run started (a second early): sources changed after it get a warning.
        let started: Date
        /// What ran the tests, for the retries of failures in the same binary.
        let coordinator: TestRunCoordinator
    }

    /// Builds the tests and runs them under the live view, their artifacts into `staging`.
    private func runTests(_ setup: RunSetup, staging: RunStaging) throws -> RanTests {
        let (request, root, output) = (setup.request, setup.root, setup.output)
        let logURL = try output.file("swift-test.log")
        let log = try AtomicFileWriter(destination: logURL)
        // The package named only when it is not the current directory (a long path would wrap on a terminal).
        let place = root.standardizedFileURL.path == URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
            ? "" : " in \(Self.displayPath(root))"
        // The live view: a status line and the failures as they happen; `--verbose` echoes the raw lines instead.
        let live = LiveView(terminal: terminal, packageRoot: root.path, heartbeat: environment["TESTSCOPE_HEARTBEAT"].flatMap(Double.init) ?? 30,
                            buildLog: Self.displayPath(logURL))
        // Through the live view, which wraps a line wider than the terminal.
        live.terminal.note("building the tests with coverage and running them\(place)")
        var testRun = TestRunRequest(
            swift: setup.swift, buildArguments: setup.buildArguments, filters: request.selection.filters, skips: request.selection.skips,
            extraArguments: request.buildArguments, artifacts: staging.folder, testTimeout: request.testTimeout, echo: live.mode == .verbose)
        (testRun.shard, testRun.shardDurations) = (request.shard, setup.durations)
        (testRun.entryPoint, testRun.perTestDirectory) = (setup.entryPoint, setup.perTestDirectory)
        testRun.testSelection = request.testSelection
        let started = Date().addingTimeInterval(-1)
        let earlier = LastRun.earlierDurations(in: output)
        let liveTerminal = live.terminal
        var coordinator = TestRunCoordinator(request: testRun, note: { liveTerminal.note($0) }, warn: { liveTerminal.emit($0) })
        coordinator.observer = RunObserver(buildLine: live.buildLine, testsSelected: { live.testsSelected($0, earlier: earlier) }, test: live.test)
        // The native engine decodes the binary's mapping while the tests run (`MappingPrefetch`).
        let prefetch = setup.settings.engine == .native ? MappingPrefetch() : nil
        if let prefetch { coordinator.observer?.built = { prefetch.start($0) } }
        live.start()
        let run: TestRunOutput
        do {
            defer { live.finish() }
            run = try coordinator.run(log: log)
        }
        try log.commit()
        return RanTests(run: run, log: logURL, prefetch: prefetch, started: started, coordinator: coordinator)
    }

    /// The reports of the run: its artifacts put in place, then coverage, per-test coverage, the tests, the shard's manifest.
    private func report(_ ran: RanTests, setup: RunSetup, staging: RunStaging, history: HistoryRecording?) throws -> Outcome {
        let (request, root, output, run, logURL) = (setup.request, setup.root, setup.output, ran.run, ran.log)
        var settings = setup.settings
        var outcome = Outcome()
        if run.buildFailed {
            terminal.error("the package or its tests did not build (see the output above and \(logURL.path)); no tests ran")
            outcome.status = .testsFailed
            return outcome
        }
        guard let testBinary = run.testBinary else {
            throw CoverageError.noTests(package: root.path)
        }
        // What a negative count can come from: a race needs counters that are not atomic and tests in parallel.
        let atomic = request.atomicCounters || request.buildArguments.contains("-instrprof-atomic-counter-update-all")
        settings.negativeCounts = NegativeCountCause(atomicCounters: atomic, parallelTests: run.testsRanInParallel)
        let shardManifest = request.shard.map {
            ShardManifest.make(shard: $0, timed: setup.durations != nil, partitioned: run.partitioned, binary: testBinary,
                               swift: setup.swift, packageRoot: root, tests: run.selected)
        }
        if let shardManifest, shardManifest.tests.isEmpty {
            // More shards than tests: this one has nothing to run, and merges as a shard without profiles.
            terminal.note("shard \(shardManifest.shard) has no tests (\(run.partitioned) test(s) in \(request.shard?.count ?? 0) shards)")
            _ = try commit(staging, root: root, profiles: [], binaries: [testBinary], log: logURL, negativeCounts: settings.negativeCounts,
                           tests: run.results, carried: request.carryForward)
            try shardManifest.write(into: output)
            return outcome
        }
        var tests = run.results
        (tests.selectionDecisions, tests.observedSelection) = (request.selectionDecisions, request.observedSelection)
        if let unlisted = request.unlistedSelection {
            for result in tests.results where tests.selectionDecisions[result.id] == nil { tests.selectionDecisions[result.id] = unlisted }
        }
        tests.warnings = tests.warnings.map(staging.final)
        for warning in tests.warnings { terminal.emit(warning) }
        tests.properties = [("host", ProcessInfo.processInfo.hostName), ("swift", setup.swift.path)]
        var testsFailed = tests.hasFailures || run.testBinaryStatus != 0
        // The manifest's name, which SwiftPM gave the test binary (the folder may be named otherwise).
        let packageName = PackageLayout.name(ofTestBinary: testBinary)
        var testReporting = TestReporting(settings: settings, terminal: terminal, environment: environment, command: "run",
                                          packageName: packageName, history: history)
        let noneRan = request.testSelection != nil && run.selected.xctest.isEmpty && run.selected.swiftTesting.isEmpty && !testsFailed
        if noneRan, request.carryForward == nil {
            // Every test skipped and nothing recorded to carry: the results say why, and there is no coverage to report.
            terminal.note("the selection runs none of the \(tests.results.count) test(s), so there is no coverage")
            _ = try commit(staging, root: root, profiles: [], binaries: [testBinary], log: logURL, negativeCounts: settings.negativeCounts, tests: tests)
            try testReporting.report(tests, packageRoot: root, output: output, coverageLine: nil, into: &outcome)
            return outcome
        }
        // With every test skipped, the coverage is all carried forward: the binary's mapping, no profile.
        // A process that crashed wrote an empty profile (llvm writes at exit): its tests are reported, its counts are lost.
        let written = run.profiles.filter { ((try? FileManager.default.attributesOfItem(atPath: $0.path)[.size]) as? Int ?? 1) > 0 }
        guard !written.isEmpty || noneRan else {
            if testsFailed {
                if !tests.results.isEmpty {
                    _ = try commit(staging, root: root, profiles: [], binaries: [], log: logURL, negativeCounts: settings.negativeCounts, tests: tests)
                    try testReporting.report(tests, packageRoot: root, output: output, coverageLine: nil, into: &outcome)
                    try shardManifest?.write(into: output)
                }
                terminal.error("no test process exited normally, so there is no coverage (see the output above and \(logURL.path))")
                outcome.status = .testsFailed
                return outcome
            }
            throw CoverageError.noProfiles(directory: run.binPath?.appendingPathComponent("codecov").path ?? root.path)
        }
        // The tests have run: this run replaces the earlier one, and its reports are made from the files in place.
        let profiles = try commit(staging, root: root, profiles: written, binaries: [testBinary], log: logURL,
                                  negativeCounts: settings.negativeCounts, tests: tests, carried: request.carryForward)
        let coverage = CoverageReporting(settings: settings, terminal: terminal, command: "run", packageRoot: root, toolchain: setup.toolchain,
                                         pullRequest: setup.pullRequest, perTest: setup.perTestDirectory != nil, html: setup.html,
                                         carried: request.carryForward)
        var collection = CoverageCollection(settings: settings, terminal: terminal, output: output)
        collection.prefetched = ran.prefetch
        let sources = try collection.sources(profiles: profiles, binaries: [testBinary])
        let model = try coverage.report(sources: sources, toolchain: setup.toolchain, output: output,
                                        dataRecordedAt: ran.started, tests: tests, packageName: packageName, into: &outcome)
        var perTest: PerTestCoverage?
        if let perTestDirectory = setup.perTestDirectory, let model {
            let pages = setup.outputs.writesPages && !settings.htmlSingleFile
            let impact = history == nil ? nil : ImpactRecording.prepare(
                packageRoot: root, swift: setup.swift, configuration: request.selection.configuration, buildArguments: request.buildArguments,
                scratchPath: RunSetup.build(request, root: root).scratchPath, ignoring: Self.writtenFolders(request, root: root), environment: environment)
            let written = try PerTestReporting(terminal: terminal).write(
                from: perTestDirectory, binary: testBinary, model: model, tests: tests, output: output,
                htmlTemplates: pages ? setup.html?.templates : nil, impact: impact, into: &outcome)
            (perTest, testReporting.perTestChunks) = (written.coverage, written.chunks)
        }
        if let labeler = request.failureLabeler {
            FailureRetries.label(&tests, labeler: labeler, perTest: perTest)
            try FailureRetries(terminal: terminal).retry(&tests, times: request.retryUntouched, coordinator: ran.coordinator,
                                                         binary: testBinary, listed: run.listed, output: output)
            // The binary's failing status was the failures' that then passed on a retry.
            if !tests.flaky.isEmpty, !tests.hasFailures { testsFailed = false }
            if let history, !tests.flaky.isEmpty { tests.flakyEvidence = history.flakyEvidence(tests.flaky.map(\.id)) }
            if !tests.failureLabels.isEmpty { try LastRun.recordVerdicts(tests, in: output) }
        }
        let coverageLine = outcome.coverage.map(CoverageReporting.summaryLine)
        try testReporting.report(tests, packageRoot: root, output: output, coverageLine: coverageLine, into: &outcome)
        try shardManifest?.write(into: output)
        if testsFailed || outcome.status == .testsFailed {
            // Failed tests are the final screen's verdict; an exit status without a failed test is said here.
            if !tests.hasFailures {
                terminal.error("the test binary exited with status \(run.testBinaryStatus); the coverage covers the tests that ran")
            }
            outcome.status = .testsFailed
        }
        if request.failOnFlaky, outcome.status == .success, !tests.flaky.isEmpty {
            // The verdict line says the tests passed: the status needs its reason.
            terminal.error("\(tests.flaky.count) test(s) passed only on a retry (flaky), and --fail-on-flaky is set")
            outcome.status = .flaky
        }
        return outcome
    }

    /// Puts this run's artifacts in place of the earlier run's, with `.testscope-run.json` (its inputs, for
    /// `testscope report` without inputs); returns where `profiles` are now. The event streams are the
    /// ones this run wrote (a relaunch adds `-2`, `-3`…), in the order they were written; `negativeCounts`:
    /// what the run rules out as the cause of a negative count, for `report`'s warning.
    private func commit(_ staging: RunStaging, root: URL, profiles: [URL], binaries: [URL], log: URL,
                        negativeCounts: NegativeCountCause, tests: TestRunResults, carried: CarriedCoverage? = nil) throws -> [URL] {
        let files = (try? FileManager.default.contentsOfDirectory(at: staging.folder, includingPropertiesForKeys: nil)) ?? []
        let streams = files.filter {
            $0.lastPathComponent.hasPrefix("swift-testing-events") && $0.pathExtension == "jsonl"
        }.sorted { $0.lastPathComponent.count == $1.lastPathComponent.count ? $0.lastPathComponent < $1.lastPathComponent : $0.lastPathComponent.count < $1.lastPathComponent.count }
        let list = staging.folder.appendingPathComponent("test-list.txt")
        let final = (profiles: profiles.map(staging.final), streams: streams.map(staging.final))
        var run = LastRun(packageRoot: root, profiles: final.profiles, binaries: binaries, testLogs: [log], eventStreams: final.streams,
                          testList: FileManager.default.fileExists(atPath: list.path) ? staging.final(list) : nil, output: staging.output)
        run.negativeCounts = negativeCounts
        run.supervisor = LastRun.SupervisorVerdicts(tests)
        run.carried = carried
        try staging.commit(run)
        return final.profiles
    }
}

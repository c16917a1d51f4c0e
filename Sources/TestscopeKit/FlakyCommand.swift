import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeFlakiness
import TestscopeHistory
import TestscopeReports
import TestscopeTerminal
import TestscopeRun
import TestscopeTestResults

extension Pipeline {
    /// `testscope flaky`: builds once with Testscope's entry point, runs the seeded orders, classifies
    /// every test and writes the flaky reports — or replays one order.
    public func flaky(_ request: FlakyRequest) throws -> Outcome {
        var request = request
        request.packageRoot = try Self.packageRoot(request.packageRoot)
        let root = request.packageRoot
        // Inputs first, so that a bad one fails before the build.
        let seed = request.seed ?? OrderPlan.randomSeed()
        if case let .replay(run, _) = request.mode, run >= request.runs {
            throw FlakinessError.unknownReplayIndex(run, runs: request.runs)
        }
        var givenOrder: (tests: [String], source: String, count: Int)?
        switch request.mode {
        case let .order(tests, count): givenOrder = (tests, "--order", count)
        case let .orderFile(file, count): givenOrder = (try OrderFile.read(file), file.path, count)
        case .detect, .replay: break
        }
        let quarantine = try request.quarantineFile.map(Self.readQuarantine) ?? []
        // A bad --history file fails before the build (detection only: a replay is not a run of the suite).
        let history = request.mode == .detect ? try HistoryRecording.prepare(request.settings.history, command: "flaky", timeout: historyTimeout) : nil
        guard let swift = try Toolchain.findSwift(environment: environment) else {
            throw ExecutionError.toolNotFound(tool: "swift", searched: ["PATH"])
        }
        let output = request.settings.outputFolder(packageRoot: root)
        try output.prepare()
        // Testscope's one build, shared with `run` (the same folder and arguments).
        let scratch = request.selection.scratchPath ?? InstrumentedBuild.defaultScratchPath(packageRoot: root)
        var extra = request.buildArguments
        if let configuration = request.selection.configuration { extra = ["-c", configuration] + extra }

        terminal.note("building the tests with Testscope's entry point in \(Self.displayPath(scratch))")
        let buildStarted = Date()
        let buildLogURL = try output.file("flaky-build.log")
        let buildLog = try LineLog(buildLogURL)
        let builder = FlakyBuilder(swift: swift, packageRoot: root, scratchPath: scratch, extraBuildArguments: extra)
        // The live view: build progress and diagnostics, then the runs under a status line (raw lines with --verbose).
        let live = LiveView(terminal: terminal, packageRoot: root.path, heartbeat: environment["TESTSCOPE_HEARTBEAT"].flatMap(Double.init) ?? 30,
                            buildLog: Self.displayPath(buildLogURL))
        live.start()
        defer { live.finish() }
        let binary: FlakyTestBinary
        do { binary = try builder.build(log: buildLog, echo: live.mode == .verbose, onLine: live.buildLine) } catch {
            try? buildLog.commit()
            live.finish()
            throw error
        }
        try buildLog.commit()
        let buildSeconds = Date().timeIntervalSince(buildStarted)

        let work = try output.file("flaky-work")
        try Interruption.creatingTemporary(work) { try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(at: work); Interruption.forget(work) }
        // Every run of a test that leaves a process behind does it again: each test warned of once.
        // Runs go in parallel, so one run's sweep can date another run's process into several of
        // its tests ("A or B or C left …"): a warning naming a test already warned of is not repeated.
        let warned = Locked(Set<String>())
        // Through the live view, so that a warning goes above its status line, not into it.
        let executor = OrderExecutor(binary: binary, workDirectory: work, testTimeout: request.testTimeout, warn: { [terminal = live.terminal] warning in
            let who = warning.message.range(of: " left ").map { String(warning.message[..<$0.lowerBound]) } ?? warning.message
            let tests = who.components(separatedBy: " or ")
            let first = warned.withLock { warned in
                defer { warned.formUnion(tests) }
                return warned.isDisjoint(with: tests)
            }
            if first { terminal.emit(warning) }
        })
        let detector = FlakyDetector(binary: binary, executor: executor, logsFolder: try output.file("flaky-logs"))
        let jobs = request.jobs ?? ProcessInfo.processInfo.activeProcessorCount
        let options = FlakyOptions(runs: request.runs, seed: seed, jobs: jobs,
                                   filters: request.selection.filters, skips: request.selection.skips, quarantine: quarantine,
                                   forceRepetition: environment["TESTSCOPE_FLAKY_SWIFT_TESTING"] == "repetition",
                                   shuffleSwiftTestingTests: request.shuffleSwiftTestingTests,
                                   maxJobs: request.jobs == nil ? FlakyDefaults.maxJobsPerCore * jobs : nil, modes: request.nodModes)
        let reproduction = Reproduction(testscopePrefix: request.commandPrefix, binaryPath: Self.displayPath(binary.binary))
        let replay = FlakyReplay(terminal: terminal, jobs: jobs)

        if case let .replay(run, count) = request.mode {
            let planned = try detector.replayOrder(options, index: run)
            terminal.printLine("Replaying run \(run) of seed \(seed): \(planned.label)")
            return try replay.run(planned.tests, count: count, detector: detector, modes: [planned.mode])
        }
        if let givenOrder {
            let known = Set(try detector.selectedTests(options).all)
            try OrderFile.validate(givenOrder.tests, known: known, source: givenOrder.source)
            return try replay.run(givenOrder.tests, count: givenOrder.count, detector: detector, modes: request.nodModes)
        }
        // Each run's line names its NOD mode; this one stays short enough for a terminal.
        live.printResults(["testscope flaky: seed \(seed), \(request.runs) runs, \(FlakyReport.jobsText(start: jobs, max: options.maxJobs))"])
        // Per-run lines are progress: --quiet drops them (the seed line above stays: it replays the run).
        let quiet = terminal.quiet
        let columns = terminal.columns  // a run's line is cut to a terminal's width (a CI log keeps it whole)
        let finishedRuns = Locked(0)
        let runs = request.runs
        live.status("Flaky runs 0/\(runs)")
        var report = try detector.detect(options, reproduction: reproduction, packageRoot: root.path) { line in
            let done = finishedRuns.withLock { $0 += 1; return $0 }
            live.status("Flaky runs \(min(done, runs))/\(runs)")
            guard !quiet else { return }
            live.printResults([columns.map { ScreenText.end(line, width: $0) } ?? line])
        }
        live.finish()
        report.buildSeconds = buildSeconds
        try proposeFixes(&report, request: request, swift: swift, work: work, excluded: [output.url, scratch], buildArguments: extra)
        var outcome = try finishFlaky(report, request: request, output: output)
        if let history {
            let store = try recordHistory(outcome, command: "flaky", packageRoot: root, history: history.url, output: output, startedAt: history.startedAt,
                                          seed: String(seed), toolchain: swift.path).store
            if Outputs(request.settings, flaky: true).writesPages {
                try writeHistoryPage(history: store, packageRoot: root, output: output, command: "flaky", into: &outcome)
            }
        }
        return outcome
    }

    /// A proposed fix for each victim and brittle test (`FixProposer`), verified on a copy of the package
    /// with `--verify-fixes` (`FixVerifier`).
    private func proposeFixes(_ report: inout FlakyReport, request: FlakyRequest, swift: URL, work: URL, excluded: [URL],
                              buildArguments: [String]) throws {
        let proposals = FixProposer(sources: .read(packageRoot: request.packageRoot)).proposals(for: report.findings)
        for (index, proposal) in proposals { report.findings[index].fix = proposal.fix }
        guard request.verifyFixes, !proposals.isEmpty else { return }
        let started = Date()
        // The build and the runs of the detection (the process's environment, the same build arguments).
        let verifier = FixVerifier(swift: swift, packageRoot: request.packageRoot, workFolder: work, excluded: excluded,
                                   extraBuildArguments: buildArguments, testTimeout: request.testTimeout)
        let columns = terminal.columns
        let verified = try verifier.verify(proposals, findings: report.findings) { [terminal] line in
            terminal.note(columns.map { ScreenText.end(line, width: $0 - "testscope: ".count) } ?? line)
        }
        for (index, verification) in verified { report.findings[index].fix?.verification = verification }
        report.fixSeconds = Date().timeIntervalSince(started)
    }

    /// Prints the table, writes the reports, and decides the status.
    private func finishFlaky(_ report: FlakyReport, request: FlakyRequest, output: OutputFolder) throws -> Outcome {
        let outputs = Outputs(request.settings, flaky: true)
        let root = request.packageRoot
        var outcome = Outcome()
        outcome.flaky = report
        for format in outputs.formats { outcome.written += try Outputs.write(format, report, request: request, into: output) }
        try SummaryReporting(outputs: outputs, terminal: terminal, environment: environment).write(&outcome, packageRoot: root, output: output)
        showFlakyScreen(report, request: request, written: outcome.written, output: output)
        return gateFlaky(report, request: request, outcome: outcome)
    }

    /// The final screen (`FlakyScreen`): the verdict, the gate's line, a block per test that is not
    /// stable, the replay command, and where the reports are — on one line, last.
    private func showFlakyScreen(_ report: FlakyReport, request: FlakyRequest, written: [String], output: OutputFolder) {
        let screen = FlakyScreen(terminal: terminal)
        terminal.printLine("")
        terminal.printLine(screen.verdict(report))
        if let line = gateLine(report, request: request) { terminal.emit(Diagnostic(line.error ? .error : .warning, line.text)) }
        let findings = screen.findings(report)
        if !findings.isEmpty, !terminal.quiet || !report.gatingFailures.isEmpty || !report.gatingFlaky.isEmpty {
            terminal.print("\n" + findings.map { $0 + "\n" }.joined())
        }
        guard !terminal.quiet else { return }
        // A bare "stable" says nothing of how much the runs rule out.
        if let confidence = report.stableConfidence {
            let line = "Stable tests " + confidence
            terminal.printLine("")
            (terminal.columns.map { ScreenText.wrap(line, width: $0) } ?? [line]).forEach(terminal.printLine)
        }
        terminal.printLine("\n" + screen.replayLine(report))
        terminal.note(String(format: "build %.1f s, %d runs %.1f s (at most %d at once), analysis %.1f s", report.buildSeconds,
                             report.orders.count, report.detectionSeconds, report.jobs, report.analysisSeconds)
                      + (report.stateSearchSeconds > 0 ? String(format: " (shared state %.1f s)", report.stateSearchSeconds) : "")
                      + (report.fixSeconds > 0 ? String(format: ", fixes verified %.1f s", report.fixSeconds) : ""))
        let reports = ResultScreen(terminal: terminal, packageRoot: request.packageRoot.path)
        if let line = reports.reportsLine(written: written, folder: output.url.path, testsOnly: false) { terminal.printLine(line) }
    }

    /// The gate's line: an error for tests that fail in every run, and for flaky tests with
    /// `--fail-on-flaky`; a warning for flaky tests otherwise.
    private func gateLine(_ report: FlakyReport, request: FlakyRequest) -> (text: String, error: Bool)? {
        if !report.gatingFailures.isEmpty {
            return ("\(report.gatingFailures.count) test(s) failed in every run: \(report.gatingFailures.map(\.id).joined(separator: ", "))", true)
        }
        let flaky = report.gatingFlaky
        guard !flaky.isEmpty else { return nil }
        let message = "\(flaky.count) flaky test(s): \(flaky.map { "\($0.id) (\($0.classification.rawValue))" }.joined(separator: ", "))"
        return request.failOnFlaky ? (message + " (--fail-on-flaky)", true) : (message, false)
    }

    /// The status: tests failing in every run fail the run (1); flaky tests do with `--fail-on-flaky` (3).
    private func gateFlaky(_ report: FlakyReport, request: FlakyRequest, outcome: Outcome) -> Outcome {
        var outcome = outcome
        if !report.gatingFailures.isEmpty {
            outcome.status = .testsFailed
        } else if !report.gatingFlaky.isEmpty, request.failOnFlaky {
            outcome.status = .flaky
        }
        return outcome
    }

    private static func readQuarantine(_ url: URL) throws -> Set<String> {
        Set(OrderFile.parse(try OrderFile.text(url, unreadable: FlakinessError.unreadableQuarantine)))
    }

    /// A path relative to the current directory when it is inside it.
    static func displayPath(_ url: URL) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        return url.path.hasPrefix(cwd + "/") ? String(url.path.dropFirst(cwd.count + 1)) : url.path
    }
}

/// Runs one order `count` times and prints each test's outcomes (`--order`, `--order-file`, `--replay`).
struct FlakyReplay {
    var terminal: Terminal
    var jobs: Int

    func run(_ order: [String], count: Int, detector: FlakyDetector, modes: [NODMode]) throws -> Outcome {
        let executions = try detector.replay(order, count: count, jobs: jobs, modes: modes)
        var anyFailed = false
        for (position, id) in order.enumerated() {
            let outcomes = executions.map { $0.results[id]?.outcome.rawValue ?? "not-run" }
            let failed = executions.filter { $0.verdict(id) == .fail }.count
            if failed > 0 { anyFailed = true }
            let tally = Dictionary(grouping: outcomes, by: { $0 }).map { "\($0.value.count) \($0.key)" }.sorted().joined(separator: ", ")
            let summary = count == 1 ? outcomes[0] : "failed \(failed) of \(count) (\(tally))"
            terminal.printLine("\(position + 1). \(id): \(summary)")
            if let failure = executions.lazy.compactMap({ $0.results[id] }).first(where: { Verdict($0.outcome) == .fail }),
               let message = failure.issues.first(where: \.isFailure)?.message ?? failure.crash?.fatalError ?? failure.crash?.reason {
                terminal.printLine("   \(message)")
            }
        }
        if executions.contains(where: { $0.relaunches > 0 }) {
            terminal.printLine("(the binary was relaunched after a crash, a timeout or an early exit)")
        }
        // A reproduction that did not run its tests reproduced nothing: never a silent success.
        let unrun = order.filter { id in executions.contains { $0.results[id] == nil } }
        if !unrun.isEmpty {
            let when = count > 1 ? " in some of the \(count) runs" : ""
            terminal.emit(.warning("\(unrun.count) test(s) of the order did not run\(when) (first: \(unrun[0])); "
                + "nothing was reproduced for them"))
        }
        var outcome = Outcome()
        if anyFailed || !unrun.isEmpty { outcome.status = .testsFailed }
        return outcome
    }
}

extension TestList {
    /// Every test, XCTest first, in the default order.
    var all: [String] { xctest + swiftTesting }
}

import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeReports
import TestscopeTestResults

/// The second half of `run` and `report`: export → model → coverage reports → gate.
struct CoverageReporting {
    var settings: ReportSettings
    var terminal: Terminal
    var formats: [ReportFormat]
    /// The subcommand (`run` or `report`), recorded with the HTML pages in the output folder's manifest.
    var command: String
    /// `--diff-base` and `--baseline`, resolved before the tests ran.
    var pullRequest: PullRequestContext?
    /// `run --per-test-coverage` with HTML: the file pages load the per-test data written after them.
    var perTestPages = false

    /// The HTML renderer, its templates parsed on another thread while the coverage inputs are read
    /// (`prefetchTemplates()`): swift-mustache's parser measures the text left at every read, and the
    /// built-in templates took 24 ms, serial, before the pages could start.
    private var htmlPrefetch: HTMLPrefetch?
    /// The HTML renderer when the caller made it already (`run` checks the templates before the tests).
    var htmlReport: HTMLReport?
    /// Keeps every file's lines and functions in the model after they are written (`run
    /// --per-test-coverage` reads them afterwards).
    var keepsFileDetail = false

    init(settings: ReportSettings, terminal: Terminal, command: String) {
        self.settings = settings
        self.terminal = terminal
        self.formats = settings.formats(default: ReportFormat.coverageDefaults)
        self.command = command
    }

    /// Starts parsing the HTML templates when HTML is asked for (a broken template is still an error
    /// before anything is written: `report` throws it).
    mutating func prefetchTemplates() {
        guard formats.contains(.html), htmlReport == nil, htmlPrefetch == nil else { return }
        htmlPrefetch = HTMLPrefetch(settings)
    }

    /// Builds the model from exports, writes the coverage reports and evaluates the gate. With
    /// `tests` (the same run's results, whose page `TestReporting` writes next), the HTML report
    /// links the Tests page and the failures in each file.
    /// `packageName`: the manifest's, when the caller knows it (from the test binary's name).
    ///
    /// JSON, LCOV and the HTML file pages are written as the model's files are built
    /// (`StreamedReports`); the text table, Cobertura, SonarQube, `index.html` and the tails of the
    /// streamed files once the model is complete.
    func report(sources: [any CoverageRecordSource], packageRoot: URL, toolchain: Toolchain?, output: OutputFolder,
                dataRecordedAt: Date?, tests: TestRunResults? = nil, packageName: String? = nil, into outcome: inout Outcome) throws {
        var html = formats.contains(.html) ? try (htmlReport ?? htmlPrefetch?.report() ?? settings.htmlReport()) : nil
        terminal.progress("reading coverage from \(sources.map { URL(fileURLWithPath: $0.name).lastPathComponent }.joined(separator: ", "))")
        PhaseTimer.mark("start")
        // SwiftPM's view of the targets arrives while the coverage data is read with the folder convention
        // (whose test folders are a subset of SwiftPM's); the first file written waits for it.
        let described = Locked<PackageLayout?>(nil)
        let describing = BlockingTask {
            let layout = PackageLayout.discover(root: packageRoot, swift: toolchain?.swift, scratchPath: settings.scratchPath)
            described.withLock { $0 = layout }
        }
        let conventional = PackageLayout.conventional(root: packageRoot)
        var buildOptions = try settings.buildOptions(packageRoot: packageRoot, toolchain: toolchain,
                                                     dataRecordedAt: dataRecordedAt, layout: conventional)
        buildOptions.needsFunctionNames = formats != [.text]
        buildOptions.needsRegionStarts = pullRequest?.changes != nil
        let builder = CoverageBuilder(options: buildOptions)
        // The top bar (this report's pages, Tests when it has the run's results, whose page TestReporting
        // writes next, and the ones other commands recorded in the folder's manifest) and the tests'
        // failures: the file pages show them, and are written from the first batch of files on.
        var pages: PagesManifest?
        if var page = html {
            page.perTestData = perTestPages
            page.tests = try tests.map { try TestReporting.mapped($0, equivalences: settings.pathEquivalences) }
            let manifest = PagesManifest.read(in: output)
                .replacing(.testReport, with: page.pageKinds + (tests == nil ? [] : [.tests]), command: command, in: output)
                .announcingHistory(settings.history != nil, command: command)
            page.navigation = manifest.navigation
            html = page
            pages = manifest
        }
        var metadata = builder.metadata(sources: sources)
        metadata.packageName = packageName
        let streamed = StreamedReports(
            formats: formats, html: html, output: output, metadata: metadata, settings: settings, packageRoot: packageRoot,
            conventional: conventional, described: { describing.wait(); return described.withLock { $0 } },
            pullRequest: pullRequest, keepsDetail: keepsFileDetail)
        if html != nil { terminal.progress("building the coverage model and writing the reports") }
        var report = try builder.build(sources: sources, onFiles: { try streamed.add(&$0) })
        try streamed.start()
        report.metadata.packageName = streamed.packageName
        PhaseTimer.mark("model")
        try pullRequest?.apply(to: &report, diff: streamed.diff, terminal: terminal)
        PhaseTimer.mark("diff + baseline")
        for warning in report.warnings { terminal.emit(warning) }
        if report.files.isEmpty {
            terminal.emit(.warning("no source files matched under \(packageRoot.path); "
                + "check --package-path, --include/--exclude and --path-equivalence"))
        } else if report.totals.functions.total > 0, report.totals.functions.covered == 0 {
            // llvm-cov reads a profile of another program as "nothing ran"; say it rather than show 0 % as fact.
            terminal.emit(.warning("no function under \(packageRoot.path) ran according to the coverage data: "
                + "the tests do not call them, or the profile belongs to another build or program (re-run the tests)"))
        }
        var written: [String] = []
        // The screen shows a fitted view of it at the end (`FinalScreen`); the file keeps every row.
        if formats.contains(.text) {
            var plain = TextReport(terminal: terminal, watermarks: settings.watermarks, showMissing: settings.showMissing)
            plain.terminal.useColor = false
            written.append(try plain.write(report, into: output))
        }
        for warning in report.baseline?.warnings ?? [] { terminal.emit(warning) }
        PhaseTimer.mark("text")
        // Cobertura and SonarQube are independent files: written side by side while JSON and LCOV are
        // put in place on this thread, in this order in `written`.
        let finished = report
        let repositoryRoot = RepositoryRoot.find(from: packageRoot).path
        var writers: [@Sendable () throws -> WrittenFiles] = []
        if formats.contains(.cobertura) {
            writers.append {
                try CoberturaFiles(renderer: CoberturaReport(sourceRoot: repositoryRoot, generatorVersion: TestscopeVersion.current))
                    .write(finished, into: output)
            }
        }
        if formats.contains(.sonarqube) {
            writers.append { .init(paths: [try SonarQubeCoverageReport(sourceRoot: repositoryRoot).write(finished, into: output)]) }
        }
        let results = writers.map { _ in Locked<Result<WrittenFiles, Error>?>(nil) }
        let tasks = zip(writers, results).map { writer, result in BlockingTask { let r = Result { try writer() }; result.withLock { $0 = r } } }
        written += try streamed.finish(.json, report)
        written += try streamed.finish(.lcov, report)
        for task in tasks { task.wait() }
        for result in results {
            guard let outcome = result.withLock({ $0 }) else { continue }
            let files = try outcome.get()
            written += files.paths
            if let diagnostic = files.diagnostic { terminal.emit(diagnostic) }
        }
        PhaseTimer.mark("json + lcov + cobertura + sonarqube")
        if let html, let pages {
            terminal.progress("writing the HTML report")
            let index = html.singleFile ? try html.writePages(report, into: output)[0] : try streamed.finish(.html, report)[0]
            try pages.write(into: output)
            written.append(index)
            PhaseTimer.mark("html index")
        }
        // The gate's lines are the final screen's, after the verdict.
        let failures = settings.gate.evaluate(report)
        outcome.coverage = report
        outcome.gateFailures = failures
        outcome.written += written
        if !failures.isEmpty { outcome.status = .belowThreshold }
    }

    /// `Coverage: lines 85.00% (17/20), functions …, regions …`.
    static func summaryLine(_ report: CoverageReport) -> String {
        let t = report.totals
        return "Coverage: lines \(Format.percent(t.lines)) (\(t.lines.covered)/\(t.lines.total)), "
            + "functions \(Format.percent(t.functions)) (\(t.functions.covered)/\(t.functions.total)), "
            + "regions \(Format.percent(t.regions)) (\(t.regions.covered)/\(t.regions.total))"
    }

    /// The option that sets each threshold, as the user typed it.
    static func option(_ threshold: CoverageGate.Threshold) -> String {
        switch threshold {
        case .lines: return "--fail-under-lines"
        case .functions: return "--fail-under-functions"
        case .regions: return "--fail-under-regions"
        case .fileLines: return "--fail-under-file"
        case .diffLines: return "--fail-under-diff"
        case .diffRegions: return "--fail-under-diff-regions"
        case .diffUncoveredLines: return "--max-uncovered-diff-lines"
        case .baseline: return "--baseline"
        }
    }

    /// `coverage gate failed: lines 66.67% < 99.00% (--fail-under-lines); worst files: …`.
    static func gateMessage(_ failure: CoverageGate.Failure) -> String {
        if [.diffLines, .diffRegions, .diffUncoveredLines, .baseline].contains(failure.threshold) { return PullRequestText.gateMessage(failure) }
        let measured = failure.measured.map { Format.fixed($0, decimals: 2) + "%" } ?? "– (nothing to measure)"
        var message = "coverage gate failed: \(failure.metric) \(measured) < \(Format.fixed(failure.required, decimals: 2))% (\(option(failure.threshold)))"
        if !failure.files.isEmpty {
            let label = failure.threshold == .fileLines ? "files below" : "worst files"
            message += "; \(label): " + failure.files.map {
                "\($0.path) \(Format.percent($0.ratio)) (\($0.ratio.covered)/\($0.ratio.total))"
            }.joined(separator: ", ")
        }
        return message
    }
}

/// `settings.htmlReport()` on a thread of its own.
private final class HTMLPrefetch: Sendable {
    private let result = Locked<Result<HTMLReport, any Error>?>(nil)
    private let task: BlockingTask

    init(_ settings: ReportSettings) {
        let result = self.result
        // The main thread's stack: swift-mustache's parser recurses once per nesting level.
        task = BlockingTask(stackSize: 8 << 20) { result.withLock { $0 = Result { try settings.htmlReport() } } }
    }

    func report() throws -> HTMLReport? {
        task.wait()
        return try result.withLock { $0 }?.get()
    }
}

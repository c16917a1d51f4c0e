import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeReports
import TestscopeTestResults

/// The second half of `run`, `report` and `merge`: records → model → coverage reports → gate. Made
/// before the coverage data is read: the HTML templates are parsed and SwiftPM's layout asked for
/// on threads of their own meanwhile.
struct CoverageReporting {
    let settings: ReportSettings
    let terminal: Terminal
    let outputs: Outputs
    /// The subcommand, recorded with the HTML pages in the output folder's manifest.
    let command: String
    let packageRoot: URL
    /// `--diff-base` and `--baseline`, resolved before the tests ran.
    let pullRequest: PullRequestContext?
    /// `run --per-test-coverage`: every file keeps its lines (per-test coverage reads them), and the
    /// HTML file pages load the per-test data written after them.
    let perTest: Bool
    /// A selective run's carried-forward coverage (`CarriedCoverage`), added where the model's lines are made.
    let carried: CarriedCoverage?
    /// The HTML renderer (nil without HTML), its templates parsed on another thread while the
    /// coverage inputs are read: swift-mustache's parser took 24 ms, serial, before the pages could
    /// start. A broken template is still an error before anything is written.
    private let html: Prefetched<HTMLReport>?
    /// SwiftPM's layout (`swift package describe` when a manifest sets a `path:`), asked for while the
    /// coverage inputs are read; the model is built with it.
    private let layout: Prefetched<PackageLayout>

    /// `html`: the renderer when the caller made it already (`run` checks the templates before the tests).
    init(settings: ReportSettings, terminal: Terminal, command: String, packageRoot: URL, toolchain: Toolchain?,
         pullRequest: PullRequestContext?, perTest: Bool = false, html: HTMLReport? = nil, carried: CarriedCoverage? = nil) {
        (self.settings, self.terminal, self.command, self.packageRoot) = (settings, terminal, command, packageRoot)
        self.outputs = Outputs(settings)
        self.pullRequest = pullRequest
        self.perTest = perTest
        self.carried = carried
        // The main thread's stack: swift-mustache's parser recurses once per nesting level.
        self.html = outputs.writesPages ? Prefetched(stackSize: 8 << 20) { try html ?? settings.htmlReport() } : nil
        let (swift, scratchPath) = (toolchain?.swift, settings.scratchPath)
        self.layout = Prefetched { PackageLayout.discover(root: packageRoot, swift: swift, scratchPath: scratchPath) }
    }

    /// Builds the model from `sources`, writes the coverage reports and evaluates the gate. With
    /// `tests` (the same run's results, whose page `TestReporting` writes next), the HTML report
    /// links the Tests page and the failures in each file.
    /// `packageName`: the manifest's, when the caller knows it (from the test binary's name).
    ///
    /// The streamed outputs (`Outputs.CoverageInput`) are written as the model's files are built
    /// (`StreamedReports`); the others, and the tails of the streamed files, once the model is complete.
    /// Returns the whole model when per-test coverage or a whole-model output kept it.
    @discardableResult
    func report(sources: [any CoverageRecordSource], toolchain: Toolchain?, output: OutputFolder, dataRecordedAt: Date?,
                tests: TestRunResults? = nil, packageName: String? = nil, into outcome: inout Outcome) throws -> CoverageModel? {
        var html = try self.html?.value()
        terminal.progress("reading coverage from \(sources.map { URL(fileURLWithPath: $0.name).lastPathComponent }.joined(separator: ", "))")
        PhaseTimer.mark("start")
        let layout = try self.layout.value()
        var buildOptions = try settings.buildOptions(packageRoot: packageRoot, toolchain: toolchain,
                                                     dataRecordedAt: dataRecordedAt, layout: layout)
        buildOptions.needsFunctionNames = outputs.formats.contains { [.streamed, .wholeModel].contains(outputs.coverage($0)) }
        buildOptions.needsRegionStarts = pullRequest?.changes != nil
        buildOptions.carried = carried
        let builder = CoverageBuilder(options: buildOptions)
        // The top bar (this report's pages, Tests when it has the run's results, whose page TestReporting
        // writes next, and the ones other commands recorded in the folder's manifest) and the tests'
        // failures: the file pages show them, and are written from the first batch of files on.
        var pages: PagesManifest?
        if var page = html {
            page.perTestData = perTest && !page.singleFile
            page.tests = try tests.map { try TestReporting.mapped($0, equivalences: settings.pathEquivalences) }
            let manifest = PagesManifest.read(in: output)
                .replacing(.testReport, with: page.pageKinds + (tests == nil ? [] : [.tests]), command: command, in: output)
                .announcingHistory(settings.history != nil, command: command)
            page.navigation = manifest.navigation
            html = page
            pages = manifest
        }
        var metadata = builder.metadata(sources: sources)
        metadata.packageName = packageName ?? layout.name
        let streamed = StreamedReports(outputs: outputs, html: html, output: output, metadata: metadata, pullRequest: pullRequest,
                                       equivalences: settings.pathEquivalences, keepsDetail: perTest)
        if html != nil { terminal.progress("building the coverage model and writing the reports") }
        var report = try builder.build(sources: sources, onFiles: { try streamed.add($0) })
        try streamed.start()
        report.metadata.packageName = metadata.packageName
        if let carried {
            // Before any output's tail, the summary and the final screen: each says which part was carried forward.
            report.carriedForward = CarriedForward(commit: carried.commit, tests: carried.tests, lines: report.files.reduce(0) { $0 + $1.carriedLines })
        }
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
        for warning in report.baseline?.warnings ?? [] { terminal.emit(warning) }
        // The whole-model outputs but HTML (independent files) are written side by side while the
        // others are put in place on this thread; `written` keeps the formats' order.
        let model = streamed.model(report)
        let root = packageRoot
        let background = outputs.coverageFormats(reading: .wholeModel).filter { $0 != .html }.map { format in
            (format, Prefetched { try Outputs.write(format, whole: model!, html: nil, packageRoot: root, into: output) })
        }
        var written: [String] = []
        for format in outputs.formats {
            var files: WrittenFiles
            switch outputs.coverage(format) {
            case nil: continue
            case .summaries: files = try Outputs.write(format, summaries: report, settings: settings, terminal: terminal, into: output)
            case .streamed:
                if format == .html { terminal.progress("writing the HTML report") }
                files = WrittenFiles(paths: try streamed.finish(format, report))
            case .wholeModel:
                files = try background.first { $0.0 == format }?.1.value()
                    ?? Outputs.write(format, whole: model!, html: html, packageRoot: packageRoot, into: output)
            }
            if format == .html, let pages {
                // The index only: the file pages are not listed.
                files.paths = Array(files.paths.prefix(1))
                try pages.write(into: output)
            }
            written += files.paths
            if let diagnostic = files.diagnostic { terminal.emit(diagnostic) }
            PhaseTimer.mark(format.rawValue)
        }
        // The gate's lines are the final screen's, after the verdict.
        let failures = settings.gate.evaluate(report)
        outcome.coverage = report
        outcome.gateFailures = failures
        outcome.written += written
        if !failures.isEmpty { outcome.status = .belowThreshold }
        return model
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

/// A value made on a thread of its own while the caller does other work; `value()` waits for it.
final class Prefetched<Value: Sendable>: Sendable {
    private let result = Locked<Result<Value, any Error>?>(nil)
    private let task: BlockingTask

    init(stackSize: Int = 1 << 20, _ make: @escaping @Sendable () throws -> Value) {
        let result = self.result
        task = BlockingTask(stackSize: stackSize) { let made = Result { try make() }; result.withLock { $0 = made } }
    }

    func value() throws -> Value {
        task.wait()
        return try result.withLock { $0 }!.get()
    }
}

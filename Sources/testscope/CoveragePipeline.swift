import ArgumentParser
import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeReports
import TestscopeTestResults

/// The shared second half of `run` and `report`: export → model → reports → gate.
struct CoveragePipeline {
    var options: CoverageOptions
    var defaultFormats: [OutputFormat]
    /// The subcommand (`run` or `report`), recorded with the HTML pages in the output folder's manifest.
    var command = "report"

    /// Writes the test reports (summary, tests.json, junit.xml, tests.html, GitHub Actions) and returns the status.
    func processTests(_ tests: TestRunResults, packageRoot: URL, output: OutputFolder, coverageLine: String?) throws -> ExitStatus {
        let terminal = options.terminal
        let formats = try options.formats(default: defaultFormats)
        let tests = try mapped(tests)
        try output.prepare()
        let summary = TestSummaryReport(terminal: terminal, packageRoot: packageRoot.path)
        if formats.contains(.text) || !options.quiet { print(try summary.renderString(tests), terminator: "") }
        var written: [String] = []
        if formats.contains(.json) { written.append(try TestResultsJSONReport(packageRoot: packageRoot.path).write(tests, into: output)) }
        if formats.contains(.junit) {
            written.append(try JUnitReport(strict: options.junitStrict, packageRoot: packageRoot.path).write(tests, into: output))
        }
        if formats.contains(.html) {
            // `run` and `report` call processCoverage first when they have coverage (coverageLine is its summary).
            written += try writeTestsPage(tests, packageRoot: packageRoot, output: output, withCoverage: coverageLine != nil)
        }
        if !written.isEmpty { terminal.note("test reports in \(output.url.path): \(written.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: ", "))") }
        let environment = ProcessInfo.processInfo.environment
        if environment["GITHUB_ACTIONS"] == "true" {
            let github = GitHubActionsReport(packageRoot: packageRoot.path)
            for line in github.annotations(tests) { print(line) }
            if let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty, let handle = FileHandle(forWritingAtPath: path) {
                handle.seekToEndOfFile()
                handle.write(Data(github.markdown(tests, coverageLine: coverageLine).utf8))
                try? handle.close()
            }
        }
        return tests.hasFailures ? .testsFailed : .success
    }

    /// The Tests page (`tests.html`, self-contained) and, when this report has no coverage page, an
    /// `index.html` that links to it; returns the paths written. The top bar and the output folder's
    /// manifest list this report's pages and the pages other commands recorded there.
    func writeTestsPage(_ tests: TestRunResults, packageRoot: URL, output: OutputFolder, withCoverage: Bool) throws -> [String] {
        let templates = try options.htmlReport(watermarks: try options.parsedWatermarks()).templates
        var page = TestsHTMLPage(templates: templates, generatorVersion: Testscope.version, packageRoot: packageRoot.path)
        page.landingIndex = !withCoverage
        let pages = PagesManifest.read(in: output)
            .replacing(.testReport, with: withCoverage ? [.coverage] + page.pageKinds : page.pageKinds, command: command, in: output)
        page.navigation = pages.navigation
        let written = try page.writePages(tests, into: output)
        try pages.write(into: output)
        if page.landingIndex, !options.quiet { print("HTML report: \(written[1]) (tests only, no coverage)") }
        if !options.quiet { print("HTML tests page: \(written[0])") }
        return written
    }

    /// Test results with `--path-equivalence` applied to their file paths, like the coverage data.
    func mapped(_ tests: TestRunResults) throws -> TestRunResults {
        let equivalences = try options.pathEquivalence.map(PathEquivalence.init(parsing:))
        guard !equivalences.isEmpty else { return tests }
        func map(_ location: SourceLocation?) -> SourceLocation? {
            location.map { SourceLocation(file: PathEquivalence.apply(equivalences, to: $0.file), line: $0.line, column: $0.column) }
        }
        func mapFrame(_ frame: String) -> String {
            for eq in equivalences {
                let from = " at " + (eq.from.hasSuffix("/") ? eq.from : eq.from + "/")
                if frame.contains(from) { return frame.replacingOccurrences(of: from, with: " at " + (eq.to.hasSuffix("/") ? eq.to : eq.to + "/")) }
            }
            return frame
        }
        var tests = tests
        tests.results = tests.results.map { result in
            var result = result
            result.location = map(result.location)
            result.issues = result.issues.map { issue in
                var issue = issue
                issue.location = map(issue.location)
                return issue
            }
            if var crash = result.crash {
                crash.location = map(crash.location)
                crash.frames = crash.frames.map(mapFrame)
                result.crash = crash
            }
            return result
        }
        return tests
    }

    /// Builds the model from exports, writes the reports and returns whether the gate passed.
    func process(exports: [URL], packageRoot: URL, toolchain: Toolchain?, output: OutputFolder,
                 dataRecordedAt: Date?) throws -> ExitStatus {
        try processCoverage(exports: exports, packageRoot: packageRoot, toolchain: toolchain, output: output,
                            dataRecordedAt: dataRecordedAt).status
    }

    /// Like `process`, also returning the model. With `tests` (the same run's results, whose page
    /// `processTests` writes next), the HTML report links the Tests page and the failures in each file.
    func processCoverage(exports: [URL], packageRoot: URL, toolchain: Toolchain?, output: OutputFolder,
                         dataRecordedAt: Date?, tests: TestRunResults? = nil) throws -> (status: ExitStatus, report: CoverageReport) {
        let terminal = options.terminal
        let formats = try options.formats(default: defaultFormats)
        let html = formats.contains(.html) ? try options.htmlReport(watermarks: try options.parsedWatermarks()) : nil
        terminal.progress("reading coverage from \(exports.map(\.lastPathComponent).joined(separator: ", "))")
        PhaseTimer.mark("start")
        // SwiftPM's view of the targets arrives while the export is read with the folder convention
        // (whose test folders are a subset of SwiftPM's), then refines the report.
        final class Described: @unchecked Sendable { var layout: PackageLayout? }
        let described = Described()
        let describing = BlockingTask {
            described.layout = PackageLayout.discover(root: packageRoot, swift: toolchain?.swift)
        }
        let conventional = PackageLayout.conventional(root: packageRoot)
        var buildOptions = try options.buildOptions(packageRoot: packageRoot, toolchain: toolchain,
                                                    dataRecordedAt: dataRecordedAt, layout: conventional)
        buildOptions.needsFunctionNames = formats != [.text]
        var report = try CoverageBuilder(options: buildOptions).build(exports: exports)
        PhaseTimer.mark("model")
        describing.wait()
        if let layout = described.layout, layout != conventional {
            report = report.refined(layout: layout, filter: try options.sourceFilter(packageRoot: packageRoot, layout: layout))
        }
        PhaseTimer.mark("package layout")
        for warning in report.warnings { terminal.warning(warning) }
        if report.files.isEmpty {
            terminal.warning("no source files matched under \(packageRoot.path); check --package-path, --include/--exclude and --path-equivalence")
        }
        try output.prepare()
        var written: [String] = []
        let watermarks = try options.parsedWatermarks()
        if formats.contains(.text) {
            let text = TextReport(terminal: terminal, watermarks: watermarks, showMissing: options.showMissing)
            print(try text.renderString(report), terminator: "")
            var plain = text
            plain.terminal.useColor = false
            written.append(try plain.write(report, into: output))
        } else if !options.quiet {
            print(summaryLine(report))
        }
        PhaseTimer.mark("text")
        // JSON and LCOV are independent files: written side by side.
        final class Outcome: @unchecked Sendable { var path: String?; var error: Error? }
        let lcovOutcome = Outcome()
        var lcovDone: BlockingTask?
        if formats.contains(.lcov) {
            let finished = report
            lcovDone = BlockingTask {
                do { lcovOutcome.path = try LCOVReport().write(finished, into: output) } catch { lcovOutcome.error = error }
            }
        }
        if formats.contains(.json) { written.append(try JSONReport(generatorVersion: Testscope.version).write(report, into: output)) }
        lcovDone?.wait()
        if let error = lcovOutcome.error { throw error }
        if let path = lcovOutcome.path { written.append(path) }
        PhaseTimer.mark("json + lcov")
        var htmlIndex: String?
        if var html {
            // The top bar: this report's pages (Tests when it has the run's results, whose page processTests
            // writes next) and the ones other commands recorded in the folder's manifest (flaky.html).
            html.tests = try tests.map(mapped)
            let pages = PagesManifest.read(in: output)
                .replacing(.testReport, with: html.pageKinds + (tests == nil ? [] : [.tests]), command: command, in: output)
            html.navigation = pages.navigation
            terminal.progress("writing the HTML report")
            htmlIndex = try html.writePages(report, into: output)[0]
            try pages.write(into: output)
            written.append(htmlIndex!)
        }
        terminal.note("reports in \(output.url.path): \(written.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: ", "))")

        if let htmlIndex, !options.quiet { print("HTML report: \(htmlIndex)") }

        let failures = options.gate.evaluate(report)
        for failure in failures { printGateFailure(failure, terminal: terminal) }
        return (failures.isEmpty ? .success : .belowThreshold, report)
    }

    func summaryLine(_ report: CoverageReport) -> String {
        let t = report.totals
        return "Coverage: lines \(Format.percent(t.lines)) (\(t.lines.covered)/\(t.lines.total)), "
            + "functions \(Format.percent(t.functions)) (\(t.functions.covered)/\(t.functions.total)), "
            + "regions \(Format.percent(t.regions)) (\(t.regions.covered)/\(t.regions.total))"
    }

    func printGateFailure(_ failure: CoverageGate.Failure, terminal: Terminal) {
        let measured = failure.measured.map { Format.fixed($0, decimals: 2) + "%" } ?? "– (nothing to measure)"
        var message = "coverage gate failed: \(failure.metric) \(measured) < \(Format.fixed(failure.required, decimals: 2))% (\(failure.option))"
        if !failure.files.isEmpty {
            let label = failure.option == "--fail-under-file" ? "files below" : "worst files"
            message += "; \(label): " + failure.files.map {
                "\($0.path) \(Format.percent($0.ratio)) (\($0.ratio.covered)/\($0.ratio.total))"
            }.joined(separator: ", ")
        }
        fflush(stdout)
        FileHandle.standardError.write(Data("testscope: \(message)\n".utf8))
    }
}

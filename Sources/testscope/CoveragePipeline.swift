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

    /// Writes the test reports (summary, tests.json, junit.xml, GitHub Actions) and returns the status.
    func processTests(_ tests: TestRunResults, packageRoot: URL, output: OutputFolder, coverageLine: String?) throws -> ExitStatus {
        let terminal = options.terminal
        let formats = try options.formats(default: defaultFormats)
        try output.prepare()
        let summary = TestSummaryReport(terminal: terminal, packageRoot: packageRoot.path)
        if formats.contains(.text) || !options.quiet { print(try summary.renderString(tests), terminator: "") }
        var written: [String] = []
        if formats.contains(.json) { written.append(try TestResultsJSONReport(packageRoot: packageRoot.path).write(tests, into: output)) }
        if formats.contains(.junit) {
            written.append(try JUnitReport(strict: options.junitStrict, packageRoot: packageRoot.path).write(tests, into: output))
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

    /// Builds the model from exports, writes the reports and returns whether the gate passed.
    func process(exports: [URL], packageRoot: URL, toolchain: Toolchain?, output: OutputFolder,
                 dataRecordedAt: Date?) throws -> ExitStatus {
        try processCoverage(exports: exports, packageRoot: packageRoot, toolchain: toolchain, output: output,
                            dataRecordedAt: dataRecordedAt).status
    }

    /// Like `process`, also returning the model.
    func processCoverage(exports: [URL], packageRoot: URL, toolchain: Toolchain?, output: OutputFolder,
                         dataRecordedAt: Date?) throws -> (status: ExitStatus, report: CoverageReport) {
        let terminal = options.terminal
        let formats = try options.formats(default: defaultFormats)
        let html = formats.contains(.html) ? try options.htmlReport(watermarks: try options.parsedWatermarks()) : nil
        terminal.progress("reading coverage from \(exports.map(\.lastPathComponent).joined(separator: ", "))")
        PhaseTimer.mark("start")
        // SwiftPM's view of the targets arrives while the export is read with the folder convention
        // (whose test folders are a subset of SwiftPM's), then refines the report.
        final class Described: @unchecked Sendable { var layout: PackageLayout? }
        let described = Described()
        let describing = DispatchGroup()
        DispatchQueue.global().async(group: describing) {
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
        if formats.contains(.json) { written.append(try JSONReport(generatorVersion: Testscope.version).write(report, into: output)) }
        PhaseTimer.mark("json")
        if formats.contains(.lcov) { written.append(try LCOVReport().write(report, into: output)) }
        PhaseTimer.mark("lcov")
        var htmlIndex: String?
        if var html {
            // The report's other pages (flaky.html) get their link in the top bar when they exist.
            html.navigation = HTMLNavigationItem.pages(in: output.url, adding: .coverage)
            terminal.progress("writing the HTML report")
            htmlIndex = try html.write(report, into: output)
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

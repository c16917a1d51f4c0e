import ArgumentParser
import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeReports

/// The shared second half of `run` and `report`: export → model → reports → gate.
struct CoveragePipeline {
    var options: CoverageOptions
    var defaultFormats: [OutputFormat]

    /// Builds the model from exports, writes the reports and returns whether the gate passed.
    func process(exports: [URL], packageRoot: URL, toolchain: Toolchain?, output: OutputFolder,
                 dataRecordedAt: Date?) throws -> ExitStatus {
        let terminal = options.terminal
        let formats = try options.formats(default: defaultFormats)
        terminal.progress("reading coverage from \(exports.map(\.lastPathComponent).joined(separator: ", "))")
        let buildOptions = try options.buildOptions(packageRoot: packageRoot, toolchain: toolchain, dataRecordedAt: dataRecordedAt)
        let report = try CoverageBuilder(options: buildOptions).build(exports: exports)
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
        if formats.contains(.json) { written.append(try JSONReport(generatorVersion: Testscope.version).write(report, into: output)) }
        if formats.contains(.lcov) { written.append(try LCOVReport().write(report, into: output)) }
        terminal.note("reports in \(output.url.path): \(written.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: ", "))")

        let failures = options.gate.evaluate(report)
        for failure in failures { printGateFailure(failure, terminal: terminal) }
        return failures.isEmpty ? .success : .belowThreshold
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

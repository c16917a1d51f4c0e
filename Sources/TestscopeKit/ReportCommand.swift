import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeReports
import TestscopeRun
import TestscopeTestResults

extension Pipeline {
    /// `testscope report`: coverage and/or test results from existing artifacts.
    /// Without inputs, it reports the last `run` into `from` (default: the output folder) again
    /// (`.testscope-run.json`), into the output folder; with a per-test question, it answers that
    /// from `from`'s `per-test.json` instead (`perTest`).
    public func report(_ request: ReportRequest) throws -> Outcome {
        let root = request.packageRoot
        let settings = request.settings
        let output = settings.outputFolder(packageRoot: root)
        let recorded = request.from.map { OutputFolder($0) } ?? output
        if let query = request.perTest { return try perTest(query, packageRoot: root, folder: recorded.url) }
        var request = request
        if !request.hasCoverageInput && !request.hasTestInput {
            let lastRun = try LastRun.read(in: recorded)
            request = try lastRun.inputs(for: request, in: recorded)
            if !request.packageRootGiven { request.packageRoot = URL(fileURLWithPath: lastRun.packageRoot) }
            terminal.note("reporting the last run in \(recorded.url.path) again")
        }
        return try render(request, tests: try importTests(request), output: output, command: "report")
    }

    /// The reports of `request`'s coverage inputs and of `tests`: every format and gate once (`report`, `merge`).
    /// `history`: the merged run is appended there (with the toolchain the shards recorded), and `history.html` drawn.
    func render(_ request: ReportRequest, tests: TestRunResults?, output: OutputFolder, command: String,
                history: (recording: HistoryRecording, toolchain: String?)? = nil) throws -> Outcome {
        let (root, settings) = (request.packageRoot, request.settings)
        var outcome = Outcome()
        if request.hasCoverageInput {
            try reportCoverage(request, output: output, tests: tests, command: command, into: &outcome)
        }
        if let tests {
            let coverageLine = outcome.coverage.map(CoverageReporting.summaryLine)
            // With the history, the Tests page's sparklines.
            try TestReporting(settings: settings, terminal: terminal, environment: environment, command: command, history: history?.recording).report(tests, packageRoot: root, output: output, coverageLine: coverageLine, into: &outcome)
        }
        let outputs = Outputs(settings)
        try SummaryReporting(outputs: outputs, terminal: terminal, environment: environment)
            .write(&outcome, packageRoot: root, output: output)
        if let history {
            let store = try recordHistory(outcome, command: command, packageRoot: root, history: history.recording.url, output: output,
                                          startedAt: history.recording.startedAt, toolchain: history.toolchain).store
            if outputs.writesPages { try writeHistoryPage(history: store, packageRoot: root, output: output, command: command, into: &outcome) }
        }
        try FinalScreen(terminal: terminal, settings: settings).show(outcome, packageRoot: root, output: output)
        return outcome
    }

    /// Test results from the imported files, or nil when none were given.
    private func importTests(_ request: ReportRequest) throws -> TestRunResults? {
        guard request.hasTestInput else { return nil }
        let list = try request.testList.map { TestList.parse(try TestResultImporter.read($0)) }
        var results = try TestResultImporter.combined(logs: request.testLogs, streams: request.eventStreams,
                                                      junit: request.junit, testList: list)
        if let supervisor = request.supervisor { results = supervisor.applied(to: results) }
        for warning in results.warnings { terminal.emit(warning) }
        return results
    }

    private func reportCoverage(_ request: ReportRequest, output: OutputFolder, tests: TestRunResults?, command: String,
                                into outcome: inout Outcome) throws {
        let (root, settings) = (request.packageRoot, request.settings)
        let pullRequest = try PullRequestContext.prepare(settings.pullRequest, packageRoot: root, environment: environment)
        // The native engine and exports need no llvm tool; `swift` (for the package layout and the demangler library) is optional.
        let toolchain = settings.engine == .native || !request.exports.isEmpty ? try? settings.toolchain() : try settings.toolchain()
        // Exports are the whole input when given.
        var (profiles, binaries) = request.exports.isEmpty ? (request.profiles, request.binaries) : ([], [])
        if let build = request.buildPath, request.exports.isEmpty {
            guard FileManager.default.fileExists(atPath: build.path) else { throw CoverageError.fileNotFound(path: build.path) }
            guard let codecov = BuildArtifacts.codecovDirectory(in: build) else { throw CoverageError.noProfiles(directory: build.path) }
            let found = BuildArtifacts.profiles(in: codecov)
            profiles = found.raw.isEmpty ? found.merged : found.raw
            guard !profiles.isEmpty else { throw CoverageError.noProfiles(directory: codecov.path) }
            guard let testBinary = BuildArtifacts.testBinary(in: codecov.deletingLastPathComponent()) else {
                throw CoverageError.noTestBinary(directory: codecov.deletingLastPathComponent().path)
            }
            binaries = [testBinary]
        }
        for file in request.exports + profiles + binaries where !FileManager.default.fileExists(atPath: file.path) {
            throw CoverageError.fileNotFound(path: file.path)
        }
        // Made before the coverage data is read: the templates and the layout are ready meanwhile.
        let coverage = CoverageReporting(settings: settings, terminal: terminal, command: command, packageRoot: root,
                                         toolchain: toolchain, pullRequest: pullRequest, carried: request.exports.isEmpty ? request.carryForward : nil)
        let sources: [any CoverageRecordSource] = request.exports.isEmpty
            ? try CoverageCollection(settings: settings, terminal: terminal, output: output)
                .sources(profiles: profiles, binaries: binaries, onlyProfilesOfTheseBinaries: request.buildPath != nil)
            : request.exports.map { ExportDocument($0) }
        try coverage.report(sources: sources, toolchain: toolchain, output: output, dataRecordedAt: (request.exports + profiles).map(BuildArtifacts.modified).max(),
                            tests: tests, packageName: binaries.lazy.compactMap(PackageLayout.name(ofTestBinary:)).first, into: &outcome)
    }
}

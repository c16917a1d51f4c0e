import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeHistory
import TestscopeReports
import TestscopeTestResults

/// The test-result half of `run`, `report` and `merge`: what each format writes of the results
/// (`Outputs`) and the GitHub Actions annotations.
struct TestReporting {
    let settings: ReportSettings
    let terminal: Terminal
    let environment: [String: String]
    /// The subcommand, recorded with the HTML pages in the output folder's manifest.
    let command: String
    /// The package's name from its manifest, when known (the Tests page's title).
    var packageName: String? = nil
    /// `--history`: the earlier runs, for the sparklines of the Tests page.
    var history: HistoryRecording? = nil
    /// `run --per-test-coverage` with HTML: the chunks of `per-test/` the Tests page loads (`PerTestPages`).
    var perTestChunks: Int? = nil

    /// Writes the test reports; a failed test makes the outcome `testsFailed`.
    func report(_ tests: TestRunResults, packageRoot: URL, output: OutputFolder, coverageLine: String?,
                into outcome: inout Outcome) throws {
        let tests = try Self.mapped(tests, equivalences: settings.pathEquivalences)
        try output.prepare()
        var written: [String] = []
        for format in Outputs(settings).formats {
            written += try Outputs.write(format, tests, reporting: self, packageRoot: packageRoot,
                                         withCoverage: coverageLine != nil, into: output)
        }
        if environment["GITHUB_ACTIONS"] == "true" {
            // The step summary is written with the Markdown summary, once the command has all its results.
            for line in GitHubActionsReport(packageRoot: packageRoot.path).annotations(tests) { terminal.printLine(line) }
        }
        outcome.tests = tests
        outcome.written += written
        if tests.hasFailures { outcome.status = .testsFailed }
    }

    /// `sonarqube-tests.xml`, with a warning for the tests no test file declares.
    func writeSonarQube(_ tests: TestRunResults, packageRoot: URL, output: OutputFolder) throws -> String {
        let index = TestSourceIndex.scan(packageRoot: packageRoot, testDirectories: PackageLayout.conventional(root: packageRoot).testDirectories)
        let sonar = SonarQubeTestsReport(sourceRoot: RepositoryRoot.find(from: packageRoot).path, packageRoot: packageRoot.path, index: index)
        let path = try sonar.write(tests, into: output)
        let unplaced = sonar.grouped(tests).unplaced
        if !unplaced.isEmpty {
            let named = unplaced.prefix(5).map(\.id).joined(separator: ", ") + (unplaced.count > 5 ? ", …" : "")
            terminal.emit(.warning("\(unplaced.count) test(s) left out of sonarqube-tests.xml: no test file declares them "
                + "(\(named)); SonarQube needs each test's file"))
        }
        return path
    }

    /// The Tests page (`tests.html`, self-contained) and, when this report has no coverage page, an
    /// `index.html` that links to it; returns the paths written. The top bar and the output folder's
    /// manifest list this report's pages and the pages other commands recorded there.
    func writeTestsPage(_ tests: TestRunResults, packageRoot: URL, output: OutputFolder, withCoverage: Bool) throws -> [String] {
        let templates = try settings.htmlReport().templates
        var page = TestsHTMLPage(templates: templates, generatorVersion: TestscopeVersion.current, packageRoot: packageRoot.path)
        page.packageName = packageName
        page.landingIndex = !withCoverage
        page.perTestChunks = perTestChunks
        if let history { page.sparklines = history.timelines(current: tests) }
        let pages = PagesManifest.read(in: output)
            .replacing(.testReport, with: withCoverage ? [.coverage] + page.pageKinds : page.pageKinds, command: command, in: output)
            .announcingHistory(settings.history != nil, command: command)
        page.navigation = pages.navigation
        let written = try page.writePages(tests, into: output)
        try pages.write(into: output)
        return written
    }

    /// Test results with `--path-equivalence` applied to their file paths, like the coverage data.
    static func mapped(_ tests: TestRunResults, equivalences: [PathEquivalence]) throws -> TestRunResults {
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
}

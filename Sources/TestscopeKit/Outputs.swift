import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeFlakiness
import TestscopeReports
import TestscopeTestResults

/// The one table of outputs: what each `--format` writes for each subject — coverage (`run`,
/// `report`, `merge`), test results, `flaky`'s findings, the history page, the Markdown summary —
/// and the formats a command writes without `--format`. Every switch is exhaustive: a new format
/// says here, subject by subject, what it writes, and a coverage output what it reads.
struct Outputs {
    /// The formats asked for, in the order they are written (`ReportFormat.allCases`: HTML, whose
    /// index links the other pages, last).
    let formats: [ReportFormat]
    let singleFileHTML: Bool

    /// `settings`' formats, or the command's defaults: the CI formats (Cobertura, SonarQube, Markdown)
    /// are asked for by name, so a default run does not grow files nobody reads.
    init(_ settings: ReportSettings, flaky: Bool = false) {
        let defaults: [ReportFormat] = flaky ? [.text, .json, .junit, .html] : [.text, .json, .lcov, .junit, .html]
        let asked = settings.formats.flatMap { $0.isEmpty ? nil : $0 } ?? defaults
        formats = ReportFormat.allCases.filter(asked.contains)
        singleFileHTML = settings.htmlSingleFile
    }

    /// What a coverage output reads.
    enum CoverageInput {
        /// The summaries, once the model is complete (the files' totals and missing ranges).
        case summaries
        /// Each file with its lines and functions as the model is built, a batch at a time
        /// (`CoverageFileStream`), then the summaries.
        case streamed
        /// Every file with its lines and functions once the model is complete: the model keeps them.
        case wholeModel
    }

    /// What `format` reads of the coverage; nil when it writes none.
    func coverage(_ format: ReportFormat) -> CoverageInput? {
        switch format {
        case .text: return .summaries
        case .json, .lcov: return .streamed
        case .html: return singleFileHTML ? .wholeModel : .streamed
        case .cobertura, .sonarqube: return .wholeModel
        case .junit, .markdown: return nil
        }
    }

    /// The coverage formats that read `input`, in writing order.
    func coverageFormats(reading input: CoverageInput) -> [ReportFormat] { formats.filter { coverage($0) == input } }

    /// A coverage output reads the whole model: every file keeps its lines and functions until the end.
    var keepsFileDetail: Bool { !coverageFormats(reading: .wholeModel).isEmpty }

    /// The stream of a `.streamed` coverage format.
    static func stream(_ format: ReportFormat, html: HTMLReport?, metadata: ReportMetadata, diffBase: String?,
                       changes: @escaping (FileCoverage) -> DiffFileCoverage?, into output: OutputFolder) throws -> any CoverageFileStream {
        switch format {
        case .json: return try JSONStream(JSONReport(generatorVersion: TestscopeVersion.current), metadata: metadata, into: output)
        case .lcov: return try LCOVStream(into: output)
        case .html: return try HTMLFileStream(html!, metadata: metadata, diffBase: diffBase, changes: changes, into: output)
        case .text, .junit, .cobertura, .sonarqube, .markdown: preconditionFailure("\(format) is not a streamed coverage format")
        }
    }

    /// Writes a `.summaries` coverage format.
    static func write(_ format: ReportFormat, summaries report: CoverageReport, settings: ReportSettings, terminal: Terminal,
                      into output: OutputFolder) throws -> WrittenFiles {
        switch format {
        case .text:
            // The screen shows a fitted view of it at the end (`FinalScreen`); the file keeps every row.
            var plain = TextReport(terminal: terminal, watermarks: settings.watermarks, showMissing: settings.showMissing)
            plain.terminal.useColor = false
            return WrittenFiles(paths: [try plain.write(report, into: output)])
        case .json, .lcov, .junit, .cobertura, .sonarqube, .markdown, .html: preconditionFailure("\(format) does not read the summaries only")
        }
    }

    /// Writes a `.wholeModel` coverage format.
    static func write(_ format: ReportFormat, whole model: CoverageModel, html: HTMLReport?, packageRoot: URL,
                      into output: OutputFolder) throws -> WrittenFiles {
        switch format {
        case .cobertura:
            let renderer = CoberturaReport(sourceRoot: RepositoryRoot.find(from: packageRoot).path, generatorVersion: TestscopeVersion.current)
            return try CoberturaFiles(renderer: renderer).write(model, into: output)
        case .sonarqube:
            return WrittenFiles(paths: [try SonarQubeCoverageReport(sourceRoot: RepositoryRoot.find(from: packageRoot).path).write(model, into: output)])
        case .html: return WrittenFiles(paths: [try html!.writePages(model, into: output)[0]])
        case .text, .json, .lcov, .junit, .markdown: preconditionFailure("\(format) does not read the whole model")
        }
    }

    /// Writes what `format` writes of the test results (`TestReporting`); the paths written.
    static func write(_ format: ReportFormat, _ tests: TestRunResults, reporting: TestReporting, packageRoot: URL,
                      withCoverage: Bool, into output: OutputFolder) throws -> [String] {
        switch format {
        case .json: return [try TestResultsJSONReport(packageRoot: packageRoot.path).write(tests, into: output)]
        case .junit: return [try JUnitReport(strict: reporting.settings.junitStrict, packageRoot: packageRoot.path).write(tests, into: output)]
        case .sonarqube: return [try reporting.writeSonarQube(tests, packageRoot: packageRoot, output: output)]
        // `run` and `report` write the coverage report first when they have one.
        case .html: return try reporting.writeTestsPage(tests, packageRoot: packageRoot, output: output, withCoverage: withCoverage)
        case .text, .lcov, .cobertura, .markdown: return []
        }
    }

    /// Writes what `format` writes of `flaky`'s findings; the paths written.
    static func write(_ format: ReportFormat, _ report: FlakyReport, request: FlakyRequest, into output: OutputFolder) throws -> [String] {
        let root = request.packageRoot
        switch format {
        case .text: return [try FlakyTableReport(terminal: Terminal(useColor: false, showProgress: false, quiet: true)).write(report, into: output)]
        case .json: return [try FlakyJSONReport(packageRoot: root.path).write(report, into: output)]
        case .junit: return [try FlakyJUnitReport(packageRoot: root.path).write(report, into: output)]
        case .html:
            // The top bar: flaky.html and the pages `run`/`report` recorded in the folder's manifest.
            var page = FlakyHTMLPage(templates: try HTMLTemplates.builtIn(), generatorVersion: TestscopeVersion.current, packageRoot: root.path)
            let pages = PagesManifest.read(in: output).replacing(.flaky, with: page.pageKinds, command: "flaky", in: output)
                .announcingHistory(request.settings.history != nil && request.mode == .detect, command: "flaky")
            page.navigation = pages.navigation
            let path = try page.writePages(report, into: output)[0]
            try pages.write(into: output)
            return [path]
        case .lcov, .cobertura, .sonarqube, .markdown: return []
        }
    }

    /// HTML: the pages (coverage, Tests, flaky, `history.html` with `--history`).
    var writesPages: Bool { formats.contains(.html) }
    /// Markdown: `summary.md` of every command (`SummaryReporting`).
    var writesSummary: Bool { formats.contains(.markdown) }
}

import Foundation
import TestscopeExecution
import TestscopeHistory
import TestscopeTestResults

extension HTMLNavigationItem {
    /// The Tests page's link.
    package static let tests = HTMLNavigationItem(title: "Tests", href: "tests.html")
}

/// `tests.html`: the Tests page of the HTML report, rendered from `templates/tests.mustache` inside the
/// report's layout (its CSS and script inlined, so it opens on its own, with or without coverage):
/// counts, failures first with message, location and the source lines around the failing line,
/// crashes and timeouts with their evidence, known issues, skipped tests with reasons, the slowest
/// tests, performance metrics and every result. As a `PageWriter` it also writes the landing
/// `index.html` of a report without coverage (`landingIndex`).
package struct TestsHTMLPage: ReportRenderer, PageWriter {
    package var fileName: String { "tests.html" }
    package var templates: HTMLTemplates
    package var navigation: [HTMLNavigationItem]
    package var generatorVersion: String
    package var paths: PathDisplay
    /// Shown in the footer ("Made by … on …").
    package var createdAt: Date
    /// How many of the slowest tests the page lists.
    package var slowestCount = 20
    /// Whether `writePages` also writes the landing `index.html` (the report has no coverage page).
    package var landingIndex = false
    package var pageKinds: [ReportPageKind] { landingIndex ? [.tests, .testsLanding] : [.tests] }

    package init(templates: HTMLTemplates, navigation: [HTMLNavigationItem] = [.tests], generatorVersion: String,
                packageRoot: String, createdAt: Date = Date()) {
        self.templates = templates
        self.navigation = navigation
        self.generatorVersion = generatorVersion
        self.paths = PathDisplay(root: packageRoot)
        self.createdAt = createdAt
    }

    /// The package's name from its manifest (default: the root's folder name).
    package var packageName: String?
    /// Each test's last runs from `--history` (by `HistoryExecution.key`): a sparkline in its "All tests" row.
    package var sparklines: [String: [HistoryTimelinePoint]] = [:]
    /// `run --per-test-coverage`: the chunks of `per-test/` (`PerTestPages`); each test's first "All tests"
    /// row gets its `PerTestAnchor` id and, in the page, a button that lists what it covered.
    package var perTestChunks: Int?

    var package: String {
        if let packageName { return packageName }
        let name = URL(fileURLWithPath: paths.root).lastPathComponent
        return name.isEmpty ? paths.root : name
    }

    package func render<Output: TextOutput>(_ run: TestRunResults, to out: inout Output) throws {
        try out.write(try page(title: "Tests · \(package)", kind: "tests", body: try body(run, anchorPrefix: ""), current: .tests,
                               perTestChunks: perTestChunks))
    }

    /// The page's content without the layout; every `id` starts with `anchorPrefix` (the single-file
    /// report embeds it as its `#tests` view with the prefix `tests-`).
    package func body(_ run: TestRunResults, anchorPrefix: String) throws -> String {
        var model = TestsHTMLModel(run: run, paths: paths, anchorPrefix: anchorPrefix, slowestCount: slowestCount)
        model.sparklines = sparklines
        model.testAnchors = perTestChunks != nil
        return try templates.render("tests", model.model(package: package, facts: facts(run)))
    }

    /// Writes `tests.html` and, with `landingIndex`, `index.html`; returns their paths.
    @discardableResult
    package func writePages(_ run: TestRunResults, into folder: OutputFolder) throws -> [String] {
        var written = [try write(run, into: folder)]
        if landingIndex { written.append(try writeLandingIndex(run, into: folder)) }
        return written
    }

    /// Writes `index.html` for a report without coverage: the counts and a link to `tests.html`, so
    /// the report's usual entry point (and the top bar's home link) always opens.
    @discardableResult
    package func writeLandingIndex(_ run: TestRunResults, into folder: OutputFolder) throws -> String {
        let body = try templates.render("tests-index", TestsLandingModel(
            package: package, packageRoot: paths.root, counts: TestsHTMLModel.counts(run), summary: run.summaryLine,
            hasFailures: run.hasFailures, testsHref: fileName))
        let url = try folder.file(ReportPageKind.testsLanding.file)
        try AtomicFileWriter.write(try page(title: "Testscope · \(package)", kind: ReportPageKind.testsLanding.rawValue, body: body,
                                            current: nil), to: url)
        return url.path
    }

    /// The layout around a body, with the CSS and script inlined.
    func page(title: String, kind: String, body: String, current: HTMLNavigationItem?, perTestChunks: Int? = nil) throws -> String {
        let common = PageCommon(root: "", package: package, packageRoot: paths.root, generator: "testscope \(generatorVersion)",
                                createdAt: UTCTimestamp.iso8601(createdAt),
                                nav: navigation.map { NavigationLink(title: $0.title, href: $0.href, current: $0 == current) })
        var layout = LayoutModel(common: common, title: title, pageKind: kind, body: body, inline: true, templates: templates)
        layout.perTestChunks = perTestChunks.map(String.init)
        return try templates.render("layout", layout)
    }

    func facts(_ run: TestRunResults) -> [FactModel] {
        var facts = [FactModel(label: "Package", value: paths.root, detail: paths.root)]
        if let started = run.startedAt {
            facts.append(FactModel(label: "Started", value: UTCTimestamp.iso8601(started), detail: "when the tests started"))
        }
        facts.append(FactModel(label: "Tests", value: run.summaryLine, detail: "\(run.results.count) results (a parameterized test has one per case)"))
        if let wall = run.wallTime {
            facts.append(FactModel(label: "Wall time", value: TestText.seconds(wall),
                                   detail: "from the first test's start to the last test's end; Swift Testing runs tests in parallel, so their durations overlap"))
        }
        if run.relaunches > 0 {
            facts.append(FactModel(label: "Relaunches", value: String(run.relaunches), detail: "the test binary was started again after a crash or a timeout"))
        }
        for property in run.properties {
            facts.append(FactModel(label: property.name.prefix(1).uppercased() + property.name.dropFirst(), value: property.value, detail: property.value))
        }
        facts.append(FactModel(label: "Generator", value: "testscope \(generatorVersion)", detail: "testscope \(generatorVersion)"))
        return facts
    }
}

/// The failing issues and crash locations of a run by absolute file path: the "Failures in this file"
/// box of the coverage file pages (`file-failures.mustache`), built once per report.
package struct TestFailureIndex: Sendable {
    struct Entry: Sendable {
        /// The id of its place on the Tests page, without the page's prefix: `t3-1` (issue 1 of result 3), `t3-crash`.
        var anchor: String
        var line: Int
        var name: String
        var className: String
        var outcome: TestOutcome
        var message: String
    }

    let byFile: [String: [Entry]]

    package init(_ run: TestRunResults) {
        var byFile: [String: [Entry]] = [:]
        for (index, result) in run.results.enumerated() where result.outcome.isFailure {
            func add(_ suffix: String, _ location: SourceLocation, _ message: String) {
                byFile[location.file, default: []].append(Entry(anchor: "t\(index + 1)-\(suffix)", line: location.line, name: result.caseName,
                                                              className: result.className, outcome: result.outcome,
                                                              message: TestText.oneLine(message, limit: 300)))
            }
            for (k, issue) in result.issues.enumerated() where issue.isFailure {
                if let location = issue.location { add("\(k + 1)", location, issue.message) }
            }
            if let location = result.crash?.location { add("crash", location, TestText.headline(result)) }
        }
        self.byFile = byFile.mapValues { entries in
            entries.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
        }
    }

    /// The box's model for the file at `path` (absolute, as in the coverage model), nil when none of
    /// the failures is located there: each links to its line on the file page (`lineHref`) and to its
    /// place on the Tests page (`anchorHref` of the anchor with `anchorPrefix`); `testsHref` is the page.
    func box(path: String, testsHref: String, anchorPrefix: String, anchorHref: (String) -> String,
             lineHref: (Int) -> String) -> FailureBoxModel? {
        guard let entries = byFile[path], !entries.isEmpty else { return nil }
        let items = entries.map { entry in
            FailureBoxModel.Item(href: anchorHref(anchorPrefix + entry.anchor), lineHref: lineHref(entry.line), line: String(entry.line),
                                 name: entry.name, className: entry.className, outcome: entry.outcome.rawValue,
                                 outcomeLabel: TestsHTMLModel.label(entry.outcome), message: entry.message)
        }
        return FailureBoxModel(items: items, testsHref: testsHref)
    }
}

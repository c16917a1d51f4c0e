import Foundation
import TestscopeExecution
import TestscopeTestResults

extension HTMLNavigationItem {
    /// The Tests page's link.
    public static let tests = HTMLNavigationItem(title: "Tests", href: "tests.html")

    /// Every page the report can have, in the order of the top bar.
    public static let reportPages: [HTMLNavigationItem] = [.coverage, .tests, .flaky]

    /// The report's pages that exist in `folder` or are being written now (`writing`), in order. An
    /// `index.html` that only stands in for missing coverage (see `TestsHTMLPage.writeLandingIndex`)
    /// does not count as the Coverage page.
    public static func pages(in folder: URL, writing: [HTMLNavigationItem]) -> [HTMLNavigationItem] {
        reportPages.filter { item in
            if writing.contains(item) { return true }
            if item == .coverage && TestsHTMLPage.isLandingIndex(in: folder) { return false }
            return FileManager.default.fileExists(atPath: folder.appendingPathComponent(item.href).path)
        }
    }
}

/// `tests.html`: the Tests page of the HTML report, rendered from `templates/tests.mustache` inside the
/// report's layout (its CSS and script inlined, so it opens on its own, with or without coverage):
/// counts, failures first with message, location and the source lines around the failing line,
/// crashes and timeouts with their evidence, known issues, skipped tests with reasons, the slowest
/// tests, performance metrics and every result.
public struct TestsHTMLPage: TestResultsRenderer {
    public var fileName: String { "tests.html" }
    public var templates: HTMLTemplates
    public var navigation: [HTMLNavigationItem]
    public var generatorVersion: String
    public var paths: PathDisplay
    /// Shown in the footer ("Made by … on …").
    public var createdAt: Date
    /// How many of the slowest tests the page lists.
    public var slowestCount = 20

    /// The `data-page` of an `index.html` written by `writeLandingIndex`.
    static let landingKind = "tests-landing"

    public init(templates: HTMLTemplates, navigation: [HTMLNavigationItem] = [.tests], generatorVersion: String,
                packageRoot: String, createdAt: Date = Date()) {
        self.templates = templates
        self.navigation = navigation
        self.generatorVersion = generatorVersion
        self.paths = PathDisplay(root: packageRoot)
        self.createdAt = createdAt
    }

    var package: String {
        let name = URL(fileURLWithPath: paths.root).lastPathComponent
        return name.isEmpty ? paths.root : name
    }

    public func render<Output: TextOutput>(_ run: TestRunResults, to out: inout Output) throws {
        try out.write(try page(title: "Tests · \(package)", kind: "tests", body: try body(run, anchorPrefix: ""), current: .tests))
    }

    /// The page's content without the layout; every `id` starts with `anchorPrefix` (the single-file
    /// report embeds it as its `#tests` view with the prefix `tests-`).
    public func body(_ run: TestRunResults, anchorPrefix: String) throws -> String {
        var model = TestsHTMLModel(run: run, paths: paths, anchorPrefix: anchorPrefix, slowestCount: slowestCount).model()
        model["package"] = package
        model["facts"] = facts(run)
        return try templates.render("tests", model)
    }

    /// Writes `index.html` for a report without coverage: the counts and a link to `tests.html`, so
    /// the report's usual entry point (and the top bar's home link) always opens.
    @discardableResult
    public func writeLandingIndex(_ run: TestRunResults, into folder: OutputFolder) throws -> String {
        let body = try templates.render("tests-index", [
            "package": package, "packageRoot": paths.root, "counts": TestsHTMLModel.counts(run), "summary": run.summaryLine,
            "hasFailures": run.hasFailures, "testsHref": fileName,
        ] as HTMLModels.Model)
        let url = try folder.file("index.html")
        try AtomicFileWriter.write(try page(title: "Testscope · \(package)", kind: Self.landingKind, body: body, current: nil), to: url)
        return url.path
    }

    /// True when `folder/index.html` is a landing page written by `writeLandingIndex` (not coverage).
    public static func isLandingIndex(in folder: URL) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: folder.appendingPathComponent("index.html").path) else { return false }
        defer { try? handle.close() }
        let head = String(decoding: handle.readData(ofLength: 512), as: UTF8.self)
        return head.contains("data-page=\"\(landingKind)\"")
    }

    /// The layout around a body, with the CSS and script inlined.
    func page(title: String, kind: String, body: String, current: HTMLNavigationItem?) throws -> String {
        let generator = "testscope \(generatorVersion)"
        let model: HTMLModels.Model = [
            "root": "", "package": package, "packageRoot": paths.root, "generator": generator,
            "createdAt": UTCTimestamp.iso8601(createdAt),
            "nav": navigation.map { ["title": $0.title, "href": $0.href, "current": $0 == current] as HTMLModels.Model },
            "title": title, "pageKind": kind, "body": body, "inlineAssets": true,
            "headScript": HTMLEscaping.inlineElementText(templates.assets["head.js"] ?? ""),
            "css": HTMLEscaping.inlineElementText(templates.assets["report.css"] ?? ""),
            "script": HTMLEscaping.inlineElementText(templates.assets["report.js"] ?? ""),
        ]
        return try templates.render("layout", model)
    }

    func facts(_ run: TestRunResults) -> [HTMLModels.Model] {
        var facts: [HTMLModels.Model] = [["label": "Package", "value": paths.root, "detail": paths.root]]
        if let started = run.startedAt {
            facts.append(["label": "Started", "value": UTCTimestamp.iso8601(started), "detail": "when the tests started"])
        }
        facts.append(["label": "Tests", "value": run.summaryLine, "detail": "\(run.results.count) results (a parameterized test has one per case)"])
        if run.relaunches > 0 {
            facts.append(["label": "Relaunches", "value": String(run.relaunches), "detail": "the test binary was started again after a crash or a timeout"])
        }
        for property in run.properties {
            facts.append(["label": property.name.prefix(1).uppercased() + property.name.dropFirst(), "value": property.value, "detail": property.value])
        }
        facts.append(["label": "Generator", "value": "testscope \(generatorVersion)", "detail": "testscope \(generatorVersion)"])
        return facts
    }
}

/// The failing issues and crash locations of a run by absolute file path: the "Failures in this file"
/// box of the coverage file pages (`file-failures.mustache`), built once per report.
public struct TestFailureIndex: Sendable {
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

    public init(_ run: TestRunResults) {
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

    /// The box's model for the file at `path` (absolute, as in the coverage model), false when none of
    /// the failures is located there: each links to its line on the file page (`lineHref`) and to its
    /// place on the Tests page (`anchorHref` of the anchor with `anchorPrefix`); `testsHref` is the page.
    func box(path: String, testsHref: String, anchorPrefix: String, anchorHref: (String) -> String, lineHref: (Int) -> String) -> Any {
        guard let entries = byFile[path], !entries.isEmpty else { return false }
        let items: [HTMLModels.Model] = entries.map { entry in
            [
                "href": anchorHref(anchorPrefix + entry.anchor), "lineHref": lineHref(entry.line), "line": String(entry.line),
                "name": entry.name, "className": entry.className, "outcome": entry.outcome.rawValue,
                "outcomeLabel": TestsHTMLModel.label(entry.outcome), "message": entry.message,
            ]
        }
        return ["count": String(items.count), "items": items, "testsHref": testsHref] as HTMLModels.Model
    }
}

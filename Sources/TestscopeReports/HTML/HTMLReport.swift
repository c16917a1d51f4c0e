import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeTestResults

/// The HTML coverage report, rendered from the templates: `index.html` (totals, files, directories,
/// targets), a page per source file under `files/` (annotated source and function table), a page
/// per directory under `dirs/` when there are more files than fit one index, and `assets/`; or,
/// with `singleFile`, one self-contained `index.html` holding every page.
package struct HTMLReport: PageWriter, Sendable {
    package var templates: HTMLTemplates
    package var watermarks: Watermarks
    package var singleFile: Bool
    /// The top navigation's links, in order (the coverage report's own is `.coverage`).
    package var navigation: [HTMLNavigationItem]
    package var generatorVersion: String
    /// The test results of the same run, if any: file pages list the failures located in them, and the
    /// single-file report embeds the Tests page as its `#tests` view.
    package var tests: TestRunResults? { didSet { testFailures = tests.map(TestFailureIndex.init) } }
    var testFailures: TestFailureIndex?
    /// Above this many files the index lists directories and each directory page lists its files
    /// (in pages of this many), so no page grows past a few MB.
    package var filesPerPage = 1000
    /// File pages load `files/<page>.tests.js` (`PerTestPages`, written by `run --per-test-coverage`).
    package var perTestData = false
    package var pageKinds: [ReportPageKind] { [.coverage] }

    package init(templates: HTMLTemplates, watermarks: Watermarks = Watermarks(), singleFile: Bool = false,
                navigation: [HTMLNavigationItem] = [.coverage], generatorVersion: String) {
        self.templates = templates
        self.watermarks = watermarks
        self.singleFile = singleFile
        self.navigation = navigation
        self.generatorVersion = generatorVersion
    }

    var generator: String { "testscope \(generatorVersion)" }

    /// The self-contained single-file report (what `--html-single-file` writes as index.html).
    package func renderString(_ report: CoverageModel) throws -> String {
        try singleFileDocument(report)
    }

    /// Writes the report into `folder` (every page atomically, nothing outside the folder) and
    /// returns the paths of its pages, `index.html` first. Pages of files no longer in the report are
    /// removed. The pages are written as a streamed report writes them (`HTMLFileStream`).
    @discardableResult
    package func writePages(_ report: CoverageModel, into folder: OutputFolder) throws -> [String] {
        guard !singleFile else {
            try folder.prepare()
            let index = try folder.file("index.html")
            try AtomicFileWriter.write(try singleFileDocument(report), to: index)
            try removeStalePages(in: folder, keeping: [])
            return [index.path]
        }
        let changes = Dictionary((report.diff?.files ?? []).map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let stream = try HTMLFileStream(self, metadata: report.metadata, diffBase: report.diff?.base,
                                        changes: { changes[$0.relativePath] }, into: folder)
        try stream.add(report.files)
        return try stream.finish(report.report)
    }

    // MARK: Pages

    func singleFileDocument(_ report: CoverageModel) throws -> String {
        let ids = report.files.indices.map { "f\($0 + 1)" }
        let bodies = try renderConcurrently(report.files.count) { i in
            try fileBody(report, index: i, root: "", anchorPrefix: ids[i] + "-", indexHref: "#index",
                         href: { "#" + ids[$0] })
        }
        let index = try indexBody(report.report, fileHrefs: ids.map { "#" + $0 }, split: false, directoryLinks: [:])
        let files = zip(ids, bodies).map { SingleFileModel.View(id: $0, body: $1) }
        var testsPage = TestsHTMLPage(templates: templates, generatorVersion: generatorVersion, packageRoot: report.metadata.packageRoot)
        testsPage.packageName = report.metadata.packageName
        let testsView = try tests.map { run in SingleFileModel.View(body: try testsPage.body(run, anchorPrefix: "tests-")) }
        let body = try templates.render("single", SingleFileModel(index: index, files: files, tests: testsView))
        return try page(report.report, title: "Coverage · \(packageName(report.metadata))", kind: "single", root: "", body: body, inline: true)
    }

    /// `index.html` around its body.
    func indexPage(_ report: CoverageReport, body: String) throws -> String {
        try page(report, title: "Coverage · \(packageName(report))", kind: "index", root: "", body: body, inline: false)
    }

    /// The layout around a page body.
    func page(_ report: CoverageReport, title: String, kind: String, root: String, body: String, inline: Bool) throws -> String {
        try page(report.metadata, title: title, kind: kind, root: root, body: body, inline: inline)
    }

    func page(_ metadata: ReportMetadata, title: String, kind: String, root: String, body: String, inline: Bool) throws -> String {
        var layout = LayoutModel(common: common(metadata, root: root), title: title, pageKind: kind, body: body,
                                 inline: inline, templates: templates)
        layout.perTestData = perTestData && kind == "file"
        return try templates.render("layout", layout)
    }

    /// What every template may use: the package, the navigation, the generator and the watermarks.
    func common(_ report: CoverageReport, root: String) -> PageCommon { common(report.metadata, root: root) }

    func common(_ metadata: ReportMetadata, root: String) -> PageCommon {
        PageCommon(root: root, package: packageName(metadata), packageRoot: metadata.packageRoot,
                   generator: generator, createdAt: metadata.createdAt,
                   nav: navigation.map { NavigationLink(title: $0.title, href: navigationHref($0), current: $0 == .coverage) },
                   watermarkLow: Format.fixed(watermarks.low, decimals: 0), watermarkHigh: Format.fixed(watermarks.high, decimals: 0))
    }

    /// A top-bar link; in a single-file report with tests, Coverage and Tests are views of the same file.
    func navigationHref(_ item: HTMLNavigationItem) -> String {
        guard singleFile, tests != nil else { return item.href }
        return item == .coverage ? "#index" : item == .tests ? "#tests" : item.href
    }

    func packageName(_ report: CoverageReport) -> String { packageName(report.metadata) }

    func packageName(_ metadata: ReportMetadata) -> String {
        if let name = metadata.packageName { return name }
        let name = URL(fileURLWithPath: metadata.packageRoot).lastPathComponent
        return name.isEmpty ? metadata.packageRoot : name
    }

    func indexBody(_ report: CoverageReport, fileHrefs: [String], split: Bool, directoryLinks: [String: String]) throws -> String {
        var directories: [GroupRowModel] = []
        if split, report.files.contains(where: { !$0.relativePath.contains("/") }) {
            let top = report.files.filter { !$0.relativePath.contains("/") }
            var row = HTMLModels.groupRow(name: "./", files: top.count, summary: top.reduce(CoverageSummary()) { $0 + $1.summary }, watermarks)
            row.path = "."
            row.depth = "0"
            row.href = directoryLinks[""]
            directories.append(row)
        }
        let sorted = report.directories.sorted { $0.name.split(separator: "/").lexicographicallyPrecedes($1.name.split(separator: "/")) }
        for group in sorted {
            var row = HTMLModels.groupRow(name: group.name, files: group.files, summary: group.summary, watermarks)
            let components = group.name.split(separator: "/")
            row.name = components.last.map(String.init) ?? group.name
            row.path = group.name
            row.depth = String(max(0, components.count - 1))
            row.href = directoryLinks[group.name]
            directories.append(row)
        }
        let model = IndexModel(
            common: common(report, root: ""), facts: HTMLModels.facts(report.metadata, generator: generator, watermarks: watermarks),
            totals: HTMLModels.totals(report.totals, watermarks), fileCount: String(report.files.count), split: split,
            fileTable: split ? nil : fileTable(report.files.indices.map { (report.files[$0], fileHrefs[$0]) }, pager: nil, changed: changedPaths(report)),
            directories: directories, directoryCount: String(report.directories.count),
            targets: report.targets.map { HTMLModels.groupRow(name: $0.name, files: $0.files, summary: $0.summary, watermarks) },
            changes: report.diff.map { changes($0, report: report, fileHrefs: fileHrefs) },
            testOutcome: tests.map { run in
                TestOutcomeModel(text: "\(run.results.count) \(run.results.count == 1 ? "test" : "tests"): \(run.summaryLine)",
                                 level: run.hasFailures ? "lo" : "hi", href: singleFile ? "#tests" : "tests.html")
            },
            carried: report.carriedForward.map { carried in
                "Carried forward: \(carried.lines) line\(carried.lines == 1 ? " is" : "s are") covered only by the \(carried.tests) test\(carried.tests == 1 ? "" : "s") "
                    + "this run skipped (not affected by the change), from their recorded coverage in the run of \(carried.commit.prefix(12)). "
                    + "These figures are the full suite's."
            })
        return try templates.render("index", model)
    }

    func fileTable(_ files: [(FileSummary, String)], pager: PagerModel?, changed: Set<String> = []) -> FileTableModel {
        // The rows' models made on every core: each formats its numbers (9 M instructions for the
        // 400 rows of an index, on the main thread at the end of the report).
        let watermarks = self.watermarks
        return FileTableModel(files: Parallel.chunkedMap(files.count, minimumChunk: 64) {
            var row = HTMLModels.fileRow(files[$0].0, href: files[$0].1, watermarks)
            row.changed = changed.contains(files[$0].0.relativePath)
            return row
        }, pages: pager, hasChanges: !changed.isEmpty)
    }

    /// The paths of the changed files the report measures.
    func changedPaths(_ report: CoverageReport) -> Set<String> { Set(report.diff?.files.map(\.path) ?? []) }

    /// The index's "Changes" section.
    func changes(_ diff: DiffCoverage, report: CoverageReport, fileHrefs: [String]) -> ChangesModel {
        var hrefs: [String: String] = [:]
        for (i, file) in report.files.enumerated() { hrefs[file.relativePath] = fileHrefs[i] }
        let against = "against \(diff.base) (merge base \(diff.mergeBase.prefix(12)))"
        let summary = diff.hasExecutableChanges
            ? "Changed lines \(against): \(Format.percent(diff.lines)) covered (\(diff.lines.covered) of \(diff.lines.total) executable, \(diff.partialLines) partial, \(diff.uncoveredLines) uncovered); regions starting on changed lines \(Format.percent(diff.regions)) (\(diff.regions.covered) of \(diff.regions.total))."
            : "No executable lines changed \(against) (\(diff.changedLines) changed lines in \(diff.files.count) measured files)."
        let rows = diff.files.map {
            ChangesModel.Row(path: $0.path, href: hrefs[$0.path] ?? "", lines: "\($0.lines.covered)/\($0.lines.total)",
                             uncovered: Format.ranges($0.uncoveredLines), partial: Format.ranges($0.partialLines))
        }
        return ChangesModel(summary: summary, rows: rows)
    }

    /// A file page's body; `href(i)` links to file i from this page.
    func fileBody(_ report: CoverageModel, index: Int, root: String, anchorPrefix: String, indexHref: String,
                  href: (Int) -> String) throws -> String {
        let context = FilePageContext(
            metadata: report.metadata, diffBase: report.diff?.base,
            changes: report.diff?.files.first { $0.path == report.files[index].relativePath },
            previous: index > 0 ? neighbour(report.files[index - 1], href: href(index - 1)) : nil,
            next: index + 1 < report.files.count ? neighbour(report.files[index + 1], href: href(index + 1)) : nil)
        return try fileBody(report.files[index], context: context, root: root, anchorPrefix: anchorPrefix, indexHref: indexHref)
    }

    /// What a file page needs besides its file: the report's metadata, the file's changed lines, and
    /// the files before and after it (its page links them).
    struct FilePageContext: Sendable {
        var metadata: ReportMetadata
        var diffBase: String?
        var changes: DiffFileCoverage?
        var previous: NeighbourModel?
        var next: NeighbourModel?
    }

    /// A file page's body: its source rows and function rows (row templates), then `file.mustache` around them.
    func fileBody(_ file: FileCoverage, context: FilePageContext, root: String, anchorPrefix: String, indexHref: String) throws -> String {
        let source = file.source
        let changes = context.changes
        var view = HTMLSourceView.render(file: file, source: source, anchorPrefix: anchorPrefix, template: templates.sourceLine,
                                         changed: Set(changes?.changedLines.flatMap { Array($0) } ?? []))
        if let changes, let base = context.diffBase {
            view.notices.append("Changed since \(base) (marked + beside the count): \(changes.lines.covered) of \(changes.lines.total) executable changed lines ran"
                + (changes.uncoveredLines.isEmpty ? "" : "; uncovered \(Format.ranges(changes.uncoveredLines))")
                + (changes.partialLines.isEmpty ? "" : "; partial \(Format.ranges(changes.partialLines))") + ".")
        }
        let (dir, base) = HTMLModels.split(file.relativePath)
        let failures = testFailures.flatMap { index in
            index.box(path: file.path, testsHref: singleFile ? "#tests" : root + "tests.html", anchorPrefix: singleFile ? "tests-" : "",
                      anchorHref: { singleFile ? "#\($0)" : "\(root)tests.html#\($0)" }, lineHref: { "#\(anchorPrefix)L\($0)" })
        }
        let labels = HTMLModels.functionLabels(file.functions)
        let model = FilePageModel(
            common: common(context.metadata, root: root), path: file.relativePath, dir: dir, base: base, target: file.target,
            indexHref: indexHref, totals: HTMLModels.totals(file.summary, watermarks), notices: view.notices, testFailures: failures,
            anchorPrefix: anchorPrefix, functionsLabel: labels.functions, notRunLabel: labels.notRun, closuresLabel: labels.closures,
            hasFunctions: !file.functions.isEmpty,
            functionRows: HTMLModels.functionRows(file, anchorPrefix: anchorPrefix, template: templates.functionRow, watermarks)
                .withBytes { String(decoding: $0, as: UTF8.self) },
            uncoveredLines: String(view.uncoveredLines), partialLines: String(view.partialLines),
            unreliableLines: String(view.unreliableLines),
            sourceLines: view.rows.withBytes { String(decoding: $0, as: UTF8.self) },
            previous: context.previous, next: context.next)
        return try templates.render("file", model)
    }

    func neighbour(_ file: FileCoverage, href: String) -> NeighbourModel {
        NeighbourModel(path: file.relativePath, base: HTMLModels.split(file.relativePath).base, href: href)
    }

    // MARK: Writing

    func writeAssets(into folder: OutputFolder) throws {
        try makeFolder(folder, "assets")
        for name in ["report.css", "report.js"] {
            try AtomicFileWriter.write(templates.assets[name] ?? "", to: try folder.file("assets/" + name))
        }
    }

    /// One file's page, `files/<page>`, written atomically.
    func writeFilePage(_ file: FileCoverage, page: String, context: FilePageContext, into folder: OutputFolder) throws {
        let body = try fileBody(file, context: context, root: "../", anchorPrefix: "", indexHref: "../index.html")
        let text = try self.page(context.metadata, title: "\(file.relativePath) · \(packageName(context.metadata))", kind: "file",
                                 root: "../", body: body, inline: false)
        try AtomicFileWriter.write(text, to: try folder.file("files/" + page))
    }

    /// Directory pages (large reports): each directory's own files, in pages of `filesPerPage`.
    /// The directory pages, rendered and written on every core; `alongside` (given the pages'
    /// links) runs among them, first: `index.html`, the longest page, which was rendered alone after
    /// them (a report that is not split still renders its index alone: 30 M instructions at 400 files).
    func writeDirectoryPages(_ report: CoverageReport, filePages: [String], into folder: OutputFolder,
                             alongside: (@Sendable ([String: String]) throws -> Void)? = nil) throws
        -> (written: [String], links: [String: String]) {
        try makeFolder(folder, "dirs")
        var byDirectory: [String: [Int]] = [:]
        for (i, file) in report.files.enumerated() {
            let dir = HTMLModels.split(file.relativePath).dir
            byDirectory[dir.isEmpty ? "" : String(dir.dropLast()), default: []].append(i)
        }
        let directories = byDirectory.keys.sorted()
        let baseNames = HTMLPageNames.pages(for: directories.map { $0.isEmpty ? "top-level" : $0 })
        var links: [String: String] = [:]
        // Every page's job first, then the pages rendered and written on every core (30 pages at
        // 1,500 files were the last serial step's longest part).
        var jobs: [(directory: String, chunk: [Int], page: Int, names: [String], summary: CoverageSummary)] = []
        for (directory, baseName) in zip(directories, baseNames) {
            let indices = byDirectory[directory]!
            let chunks = stride(from: 0, to: indices.count, by: filesPerPage).map { Array(indices[$0..<min($0 + filesPerPage, indices.count)]) }
            let stem = String(baseName.dropLast(".html".count))
            let names = chunks.indices.map { $0 == 0 ? baseName : "\(stem)~\($0 + 1).html" }
            links[directory] = "dirs/" + names[0]
            let summary = indices.reduce(CoverageSummary()) { $0 + report.files[$1].summary }
            for (page, chunk) in chunks.enumerated() { jobs.append((directory, chunk, page, names, summary)) }
        }
        let changed = changedPaths(report), pages = jobs, pageLinks = links
        let first = alongside == nil ? 0 : 1
        let written = try renderConcurrently(pages.count + first) { k -> String? in
            guard k >= first else {
                try alongside?(pageLinks)
                return nil
            }
            let job = pages[k - first]
            let model = DirectoryPageModel(
                common: common(report, root: "../"), path: job.directory.isEmpty ? "." : job.directory,
                totals: HTMLModels.totals(job.summary, watermarks),
                fileTable: fileTable(job.chunk.map { (report.files[$0], "../files/" + filePages[$0]) },
                                     pager: HTMLModels.pager(count: job.names.count, current: job.page) { job.names[$0] }, changed: changed))
            let body = try templates.render("directory", model)
            let text = try self.page(report, title: "\(job.directory.isEmpty ? "." : job.directory)/ · \(packageName(report))",
                                     kind: "directory", root: "../", body: body, inline: false)
            try AtomicFileWriter.write(text, to: try folder.file("dirs/" + job.names[job.page]))
            return "dirs/" + job.names[job.page]
        }
        return (written.compactMap { $0 }, links)
    }

    func makeFolder(_ folder: OutputFolder, _ name: String) throws {
        _ = try folder.subfolder(name)
    }

    /// Removes `files/*.html` and `dirs/*.html` that this run did not write (left from an earlier report).
    func removeStalePages(in folder: OutputFolder, keeping written: Set<String>) throws {
        for sub in ["files", "dirs"] {
            let url = try folder.file(sub)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { continue }
            for name in names where name.hasSuffix(".html") && !written.contains("\(sub)/\(name)") {
                try? FileManager.default.removeItem(at: url.appendingPathComponent(name))
            }
        }
    }

    /// Runs `body` for 0..<count on all cores; results in order; the first error is rethrown.
    func renderConcurrently<T: Sendable>(_ count: Int, _ body: @Sendable (Int) throws -> T) throws -> [T] {
        let state = Locked((results: [T?](repeating: nil, count: count), error: (any Error)?.none))
        DispatchQueue.concurrentPerform(iterations: count) { i in
            do {
                let value = try body(i)
                state.withLock { $0.results[i] = value }
            } catch {
                state.withLock { if $0.error == nil { $0.error = error } }
            }
        }
        let (results, firstError) = state.withLock { ($0.results, $0.error) }
        if let firstError { throw firstError }
        return results.map { $0! }
    }
}

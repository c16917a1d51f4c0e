import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution
@testable import TestscopeReports
import TestscopeTemplates

/// The HTML report written from the recorded samples agrees with the model line by line, escapes
/// everything from the package, and is laid out as documented (pages, single file, split index).
final class HTMLReportTests: XCTestCase {
    func write(_ report: CoverageModel, _ html: HTMLReport? = nil) throws -> (folder: URL, pages: [String]) {
        let folder = try HTMLTestSupport.temporaryFolder()
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try (html ?? HTMLTestSupport.htmlReport()).writePages(report, into: OutputFolder(folder))
        return (folder, HTMLPageNames.pages(for: report.files.map(\.relativePath)))
    }

    func testEveryLineOfEveryFileShowsTheModelsCountAndState() throws {
        for sample in HTMLTestSupport.samples {
            let report = try HTMLTestSupport.report(sample)
            let (folder, pages) = try write(report)
            for (file, page) in zip(report.files, pages) {
                let html = try HTMLTestSupport.read(folder.appendingPathComponent("files/" + page))
                let rows = try HTMLTestSupport.sourceRows(html)
                let source = try XCTUnwrap(SourceText.read(URL(fileURLWithPath: file.path)), file.path)
                XCTAssertEqual(rows.map(\.line), (1...UInt32(source.lineCount)).map { $0 }, "\(file.relativePath): one row per source line")
                let byLine = Dictionary(uniqueKeysWithValues: rows.map { ($0.line, $0) })
                for line in file.lines {
                    let row = try XCTUnwrap(byLine[line.line], "\(file.relativePath):\(line.line)")
                    XCTAssertEqual(row.count, HTMLFormat.abbreviatedCount(line.count), "\(file.relativePath):\(line.line)")
                    XCTAssertTrue(row.exact.hasPrefix(String(line.count)), "exact count in the tooltip: \(row.exact)")
                    XCTAssertEqual(row.state, line.count == 0 ? "unc" : line.isPartial ? "par" : "cov", "\(file.relativePath):\(line.line)")
                    XCTAssertEqual(row.code.contains("class=\"u\""), line.isPartial, "\(file.relativePath):\(line.line) marks never-run spans")
                }
                let executable = Set(file.lines.map(\.line))
                let excluded = Set(file.excludedLines).union(ExclusionMarkers.excludedLines(in: source).lines)
                for row in rows where !executable.contains(row.line) {
                    XCTAssertEqual(row.state, excluded.contains(row.line) ? "exc" : "", "\(file.relativePath):\(row.line)")
                    XCTAssertEqual(row.count, "")
                }
                for row in rows {
                    XCTAssertEqual(HTMLTestSupport.text(row.code), source.line(Int(row.line)), "\(file.relativePath):\(row.line) shows the source text")
                }
            }
        }
    }

    func testPartialLinesHighlightExactlyTheNeverRunColumns() throws {
        let report = try HTMLTestSupport.report("Shapes")
        let file = try XCTUnwrap(report.files.first { $0.relativePath.hasSuffix("Shape.swift") })
        let (folder, pages) = try write(report)
        let html = try HTMLTestSupport.read(folder.appendingPathComponent("files/" + pages[report.files.firstIndex(of: file)!]))
        let rows = Dictionary(uniqueKeysWithValues: try HTMLTestSupport.sourceRows(html).map { ($0.line, $0) })
        let source = try XCTUnwrap(SourceText.read(URL(fileURLWithPath: file.path)))
        let partial = file.lines.filter(\.isPartial)
        XCTAssertFalse(partial.isEmpty, "Shape.swift has partial lines (guard … else { throw … })")
        for line in partial {
            let code = try XCTUnwrap(rows[line.line]).code
            let marked = Self.uncoveredSpans(code)
            XCTAssertEqual(marked.map(\.count), line.uncoveredSpans.map { String($0.count) }, "line \(line.line)")
            let bytes = Array(source.line(Int(line.line)).utf8)
            let expected = line.uncoveredSpans.map { span in
                String(decoding: bytes[(Int(span.start) - 1)..<(span.end.map { Int($0) - 1 } ?? bytes.count)], as: UTF8.self)
            }
            XCTAssertEqual(marked.map { HTMLTestSupport.text($0.html) }, expected, "line \(line.line): the highlighted columns")
        }
    }

    /// The never-run spans of a line's code: their tooltip count and inner markup (balanced spans).
    static func uncoveredSpans(_ code: String) -> [(count: String, html: String)] {
        var result: [(String, String)] = []
        var rest = Substring(code)
        let open = "<span class=\"u\" title=\"not executed: region count "
        while let range = rest.range(of: open) {
            rest = rest[range.upperBound...]
            let count = String(rest.prefix { $0 != "\"" })
            rest = rest[rest.index(rest.firstIndex(of: ">")!, offsetBy: 1)...]
            var depth = 1
            var inner = ""
            while depth > 0, !rest.isEmpty {
                if rest.hasPrefix("</span>") { depth -= 1; if depth == 0 { rest = rest.dropFirst(7); break } }
                else if rest.hasPrefix("<span") { depth += 1 }
                inner.append(rest.removeFirst())
            }
            result.append((count, inner))
        }
        return result
    }

    func testIndexHasTotalsAndARowPerFileFromTheModel() throws {
        for sample in HTMLTestSupport.samples {
            let report = try HTMLTestSupport.report(sample)
            let (folder, pages) = try write(report)
            let index = try HTMLTestSupport.read(folder.appendingPathComponent("index.html"))
            for (key, ratio) in [("lines", report.totals.lines), ("functions", report.totals.functions), ("regions", report.totals.regions)] {
                XCTAssertTrue(index.contains("data-metric=\"\(key)\""), key)
                XCTAssertTrue(index.contains("<div class=\"card-value\">\(Format.percent(ratio))</div>"), "\(sample) \(key) total")
                XCTAssertTrue(index.contains("<span class=\"covered\">\(ratio.covered)</span> of <span class=\"total\">\(ratio.total)</span>"))
            }
            for (file, page) in zip(report.files, pages) {
                let row = "<tr data-name=\"\(HTMLEscaping.escape(file.relativePath))\" data-lines=\"\(file.summary.lines.percent.map { Format.fixed($0, decimals: 4) } ?? "-1")\""
                XCTAssertTrue(index.contains(row), "\(sample): row of \(file.relativePath)")
                XCTAssertTrue(index.contains("href=\"files/\(page)\""))
                XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("files/" + page).path))
            }
            for target in report.targets { XCTAssertTrue(index.contains("<td class=\"name\">\(HTMLEscaping.escape(target.name))</td>")) }
            for directory in report.directories { XCTAssertTrue(index.contains("data-dir=\"\(HTMLEscaping.escape(directory.name))/\"")) }
            for name in ["assets/report.css", "assets/report.js"] {
                XCTAssertEqual(try HTMLTestSupport.read(folder.appendingPathComponent(name)), BundledTemplates.files[String(name.dropFirst(7))])
            }
        }
    }

    func testFunctionTableNestsClosuresUnderTheirFunctionAndLinksToTheLine() throws {
        let report = try HTMLTestSupport.report("Shapes")
        let (folder, pages) = try write(report)
        for (file, page) in zip(report.files, pages) {
            let html = try HTMLTestSupport.read(folder.appendingPathComponent("files/" + page))
            var expected: [String] = []
            // Functions that never ran first (HTMLPageLayoutTests checks the groups and the order).
            for function in file.functions.sorted(by: { ($0.count > 0 ? 1 : 0, $0.line, $0.column) < ($1.count > 0 ? 1 : 0, $1.line, $1.column) }) {
                expected.append("function|\(function.name)|\(function.line)|\(function.count)")
                expected += function.closures.map { "closure|\($0.name)|\($0.line)|\($0.count)" }
            }
            let pattern = try NSRegularExpression(pattern: ##"<tr class="(function|closure) (?:hit|missed)"><td class="fn"><a href="#L(\d+)">([^<]*)</a>(?:<button[^>]*>.*?</button>)?</td><td class="num">\d+</td><td class="num" title="(\d+) call"##)
            let ns = html as NSString
            let found = pattern.matches(in: html, range: NSRange(location: 0, length: ns.length)).map {
                "\(ns.substring(with: $0.range(at: 1)))|\(HTMLTestSupport.text(ns.substring(with: $0.range(at: 3))))|\(ns.substring(with: $0.range(at: 2)))|\(ns.substring(with: $0.range(at: 4)))"
            }
            XCTAssertEqual(found, expected, file.relativePath)
        }
    }

    func testHostileNamesAndSourceAreTextNeverMarkup() throws {
        let report = try HTMLTestSupport.report("Hostile")
        let file = try XCTUnwrap(report.files.first)
        XCTAssertTrue(file.relativePath.contains("<script>&'q'"), "the fixture's file name: \(file.relativePath)")
        XCTAssertTrue(file.functions.contains { $0.name.contains("<script>alert(\"x&y\")</script>") })
        for singleFile in [false, true] {
            let (folder, pages) = try write(report, try HTMLTestSupport.htmlReport(singleFile: singleFile))
            let pagesToCheck = singleFile ? ["index.html"] : ["index.html", "files/" + pages[0]]
            for name in pagesToCheck {
                let html = try HTMLTestSupport.read(folder.appendingPathComponent(name))
                XCTAssertEqual(html.components(separatedBy: "<script").count - 1, 2, "\(name): only the report's own two scripts")
                for raw in ["<script>alert", "</textarea>", "<b onmouseover", "<img src=x", "</script><script>", "<!-- -->"] {
                    XCTAssertFalse(html.contains(raw), "\(name) holds raw \(raw)")
                }
                XCTAssertTrue(html.contains("Sources/Hostile/&lt;script&gt;&amp;&#39;q&#39;.swift"), "\(name): the file name as text")
                if name != "index.html" || singleFile {
                    XCTAssertTrue(html.contains("Hostile.`&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;`() -&gt; String"))
                    XCTAssertTrue(html.contains("&lt;/textarea&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp;amp;"))
                }
            }
        }
        XCTAssertTrue(pagesAreSafe(HTMLPageNames.pages(for: report.files.map(\.relativePath))))
    }

    /// Text a page shows that looks like the marks where the rows are spliced in (control characters
    /// and the marks' names) is shown as it is: the rows are spliced in once, where the template puts them.
    func testTextLikeTheRowMarksIsNotWhereTheRowsGo() throws {
        var report = try HTMLTestSupport.report("Shapes")
        let forged = ["source-rows", "function-rows", "page-title", "page-body"].map { "\u{1}testscope-\($0)\u{1}" }.joined(separator: " ")
        report.files[0].target = forged
        for singleFile in [false, true] {
            let (folder, pages) = try write(report, try HTMLTestSupport.htmlReport(singleFile: singleFile))
            let html = try HTMLTestSupport.read(folder.appendingPathComponent(singleFile ? "index.html" : "files/" + pages[0]))
            let firstRows = html.components(separatedBy: "<td class=\"ln\">1</td>").count - 1
            XCTAssertEqual(firstRows, singleFile ? report.files.filter { SourceText.read(URL(fileURLWithPath: $0.path)) != nil }.count : 1,
                           "each file's rows once (single file: \(singleFile))")
            if !singleFile {
                let source = try XCTUnwrap(SourceText.read(URL(fileURLWithPath: report.files[0].path)))
                XCTAssertEqual(try HTMLTestSupport.sourceRows(html).count, source.lineCount)
                XCTAssertEqual(html.components(separatedBy: "<tr class=\"function ").count - 1, report.files[0].functions.count, "the function rows once")
            }
            XCTAssertTrue(html.contains("target <strong>\(forged)</strong>"), "the target shown as text (single file: \(singleFile))")
        }
    }

    /// The Changes section and the changed-line marks: the hostile file name and a hostile base are text.
    func testChangesSectionAndMarksEscapeNamesAndBase() throws {
        var report = try HTMLTestSupport.report("Hostile")
        let file = try XCTUnwrap(report.files.first)
        let lines = file.lines.map(\.line)
        let (first, last) = (try XCTUnwrap(lines.first), try XCTUnwrap(lines.last))
        let changes = ChangeSet(base: "<img src=x onerror=alert(1)>", mergeBase: "0123456789abcdef", includesUncommitted: false,
                                files: [ChangedFile(path: file.path, repoPath: file.relativePath, addedLines: [first...last])])
        var classifier = DiffClassifier(changes, packageRoot: report.metadata.packageRoot)
        for file in report.files { _ = classifier.classify(file) }
        report.diff = classifier.result()
        let diff = try XCTUnwrap(report.diff)
        XCTAssertEqual(diff.files.count, 1)
        let (folder, pages) = try write(report, try HTMLTestSupport.htmlReport())
        let index = try HTMLTestSupport.read(folder.appendingPathComponent("index.html"))
        XCTAssertTrue(index.contains("<h2>Changes</h2>"))
        XCTAssertTrue(index.contains("&lt;img src=x onerror=alert(1)&gt;"))
        XCTAssertFalse(index.contains("<img src=x"))
        XCTAssertTrue(index.contains(">Sources/Hostile/&lt;script&gt;&amp;&#39;q&#39;.swift</a>"))
        XCTAssertTrue(index.contains("data-changed=\"1\""))
        let page = try HTMLTestSupport.read(folder.appendingPathComponent("files/" + pages[0]))
        XCTAssertFalse(page.contains("<img src=x"))
        // Every changed line's row is marked; the others are not.
        let marked = page.components(separatedBy: " chg\"").count - 1
        let changedRows = Set(diff.files[0].changedLines.flatMap { Array($0) })
        let sourceLines = try XCTUnwrap(SourceText.read(URL(fileURLWithPath: file.path))).lineCount
        XCTAssertEqual(marked, changedRows.filter { Int($0) <= sourceLines }.count)
    }

    func pagesAreSafe(_ names: [String]) -> Bool {
        names.allSatisfy { $0.unicodeScalars.allSatisfy { CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.").contains($0) } }
    }

    func testSingleFileReportIsSelfContained() throws {
        let report = try HTMLTestSupport.report("Inventory")
        let (folder, _) = try write(report, try HTMLTestSupport.htmlReport(singleFile: true))
        let contents = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        XCTAssertEqual(contents, ["index.html"], "one file, no assets/ or files/")
        let html = try HTMLTestSupport.read(folder.appendingPathComponent("index.html"))
        XCTAssertEqual(html, try HTMLTestSupport.htmlReport(singleFile: true).renderString(report), "write and render agree")
        for reference in ["assets/", "href=\"files/", " src=", "http://", "https://", "@import", "url("] {
            XCTAssertFalse(html.contains(reference), "self-contained: no \(reference)")
        }
        XCTAssertTrue(html.contains("<style>"))
        for (i, file) in report.files.enumerated() {
            XCTAssertTrue(html.contains("<section class=\"view\" id=\"f\(i + 1)\" data-view=\"file\">"), file.relativePath)
            XCTAssertTrue(html.contains("href=\"#f\(i + 1)\""))
            let rows = try HTMLTestSupport.sourceRows(html, anchorPrefix: "f\(i + 1)-")
            XCTAssertEqual(rows.filter { $0.state != "" && $0.state != "exc" }.count, file.lines.count, file.relativePath)
        }
    }

    func testLargeReportsListDirectoriesAndPageEachDirectorysFiles() throws {
        let report = try HTMLTestSupport.report("Inventory")
        var html = try HTMLTestSupport.htmlReport()
        html.filesPerPage = 2
        XCTAssertGreaterThan(report.files.count, html.filesPerPage)
        let (folder, pages) = try write(report, html)
        let index = try HTMLTestSupport.read(folder.appendingPathComponent("index.html"))
        XCTAssertFalse(index.contains("<table class=\"grid files"), "the index holds no file table")
        XCTAssertTrue(index.contains("\(report.files.count) files, so each directory"))
        let dirs = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("dirs").path).sorted()
        var listed: [String] = []
        for name in dirs {
            let page = try HTMLTestSupport.read(folder.appendingPathComponent("dirs/" + name))
            let rows = page.components(separatedBy: "<tr data-name=\"").dropFirst()
            XCTAssertLessThanOrEqual(rows.count, 2, name)
            for row in rows {
                let href = try XCTUnwrap(row.components(separatedBy: "href=\"../files/").dropFirst().first?.components(separatedBy: "\"").first)
                XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("files/" + href).path), href)
                listed.append(href)
            }
            if !name.contains("~") { XCTAssertTrue(index.contains("href=\"dirs/\(name)\""), "the index links \(name)") }
        }
        XCTAssertEqual(listed.sorted(), pages.sorted(), "every file is on exactly one directory page")
        XCTAssertTrue(dirs.contains { $0.contains("~2") } == report.directories.contains { group in
            report.files.filter { HTMLModels.split($0.relativePath).dir == group.name + "/" }.count > 2 })
    }

    func testStalePagesAreRemovedAndNoTemporaryFilesRemain() throws {
        let report = try HTMLTestSupport.report("Shapes")
        let folder = try HTMLTestSupport.temporaryFolder()
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("files"), withIntermediateDirectories: true)
        try "old".write(to: folder.appendingPathComponent("files/Gone.swift.html"), atomically: true, encoding: .utf8)
        try "keep".write(to: folder.appendingPathComponent("files/notes.txt"), atomically: true, encoding: .utf8)
        let index = try HTMLTestSupport.htmlReport().writePages(report, into: OutputFolder(folder))[0]
        XCTAssertEqual(index, folder.appendingPathComponent("index.html").standardizedFileURL.path)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("files").path).sorted()
        XCTAssertEqual(files, (HTMLPageNames.pages(for: report.files.map(\.relativePath)) + ["notes.txt"]).sorted())
        let all = FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []
        XCTAssertFalse(all.contains { $0.contains(".tmp-") }, "\(all)")
    }

    func testNavigationShowsExactlyTheGivenPages() throws {
        let report = try HTMLTestSupport.report("Shapes")
        let plain = try HTMLTestSupport.htmlReport(singleFile: true).renderString(report)
        let nav = { (html: String) in html.components(separatedBy: "<nav class=\"tabs\"")[1].components(separatedBy: "</nav>")[0] }
        XCTAssertEqual(nav(plain).components(separatedBy: "<a ").count - 1, 1)
        XCTAssertTrue(nav(plain).contains("<a href=\"index.html\" aria-current=\"page\">Coverage</a>"))
        let more = try HTMLTestSupport.htmlReport(singleFile: true, navigation: [.coverage, HTMLNavigationItem(title: "Tests", href: "tests.html")])
            .renderString(report)
        XCTAssertTrue(nav(more).contains("<a href=\"tests.html\">Tests</a>"))
    }

    func testMissingSourceKeepsTheCountsAndSaysWhy() throws {
        var report = try HTMLTestSupport.report("Shapes")
        let original = report.files[2]
        // The model read no text (the file was deleted before the report).
        (report.files[2].source, report.files[2].sourceAvailable) = (nil, false)
        let html = try HTMLTestSupport.htmlReport(singleFile: true).renderString(report)
        XCTAssertTrue(html.contains("could not be read (deleted or moved since the run)"))
        let rows = try HTMLTestSupport.sourceRows(html, anchorPrefix: "f3-")
        XCTAssertEqual(rows.filter { !$0.count.isEmpty }.map(\.line), original.lines.map(\.line))
    }

    /// The pages show the text the model read (each source is read once): a file moved after the
    /// model was built still has its rows, the same as the model's lines.
    func testPagesShowTheSourceTheModelRead() throws {
        var report = try HTMLTestSupport.report("Shapes")
        let original = report.files[2]
        report.files[2].path = "/nonexistent/\(UUID().uuidString)/Shape.swift"
        let html = try HTMLTestSupport.htmlReport(singleFile: true).renderString(report)
        XCTAssertFalse(html.contains("could not be read (deleted or moved since the run)"))
        let rows = try HTMLTestSupport.sourceRows(html, anchorPrefix: "f3-")
        XCTAssertEqual(rows.count, try XCTUnwrap(original.source).lineCount)
        XCTAssertEqual(rows.filter { !$0.count.isEmpty }.map(\.line), original.lines.map(\.line))
    }

    func testWatermarksChooseTheColours() throws {
        let report = try HTMLTestSupport.report("Shapes")
        var html = try HTMLTestSupport.htmlReport(singleFile: true)
        html.watermarks = Watermarks(low: 90, high: 95)
        let text = try html.renderString(report)
        XCTAssertTrue(text.contains("<td class=\"pct lo\" title=\"24 of 28 covered\"><span class=\"v\">85.71%</span>"), "85.71% < 90 is low")
        XCTAssertEqual(HTMLModels.ratio(CoverageRatio(covered: 0, total: 0), html.watermarks).level, "na", "0/0 is gray")
        XCTAssertEqual(HTMLModels.ratio(CoverageRatio(covered: 0, total: 0), html.watermarks).text, "–")
        XCTAssertTrue(text.contains("below 90 % red, below 95 % yellow"))
    }
}

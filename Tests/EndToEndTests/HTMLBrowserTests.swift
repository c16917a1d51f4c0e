import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution

/// The HTML report as a person sees it: the built `testscope` writes it from the recorded fixtures,
/// real headless Chromium (Debian's `chromium`) loads it from file:// with the network off, and the
/// rendered DOM must hold the model's totals and llvm-cov's own per-line counts, with no script
/// error, no blocked load, and the hostile fixture's markup only ever as text.
final class HTMLBrowserTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try TestscopeProcess.temporaryDirectory("testscope-html")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func testShapesIndexAndFilePageInChromium() throws {
        let output = folder.appendingPathComponent("report")
        let result = try TestscopeProcess.run(try TestscopeProcess.recordedReportArguments("Shapes") + ["--format", "html", "--output", output.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("HTML report: \(output.path)/index.html"), result.stdout)
        let model = try Self.model("Shapes")

        let index = try Chromium.load(output.appendingPathComponent("index.html"), in: folder)
        index.assertClean()
        for (key, ratio) in [("lines", model.totals.lines), ("functions", model.totals.functions), ("regions", model.totals.regions)] {
            XCTAssertEqual(try index.text("//div[@data-metric='\(key)']//span[@class='covered']"), String(ratio.covered), key)
            XCTAssertEqual(try index.text("//div[@data-metric='\(key)']//span[@class='total']"), String(ratio.total), key)
        }
        XCTAssertEqual(try index.text("count(//table[contains(@class,'files')]/tbody/tr)"), String(model.files.count))
        for file in model.files {
            let lines = file.summary.lines
            XCTAssertEqual(try index.text("//tr[@data-name='\(file.relativePath)']/td[2]/@title"), "\(lines.covered) of \(lines.total) covered")
            XCTAssertEqual(try index.text("//tr[@data-name='\(file.relativePath)']/@data-missed"), String(lines.missed))
        }

        let shape = try XCTUnwrap(model.files.first { $0.relativePath == "Sources/Shapes/Shape.swift" })
        let page = try Chromium.load(output.appendingPathComponent("files/Sources.Shapes.Shape.swift.html"), in: folder)
        page.assertClean()
        let rows = page.sourceRows()
        let show = try Self.llvmCovShowCounts("Shapes", file: shape.relativePath)
        XCTAssertFalse(show.isEmpty)
        for (line, count) in show {
            XCTAssertEqual(rows[line]?.count, count, "Shape.swift:\(line): llvm-cov show prints \(count)")
        }
        XCTAssertEqual(Set(rows.filter { !$0.value.count.isEmpty }.keys), Set(show.keys), "counts exactly on llvm-cov's executable lines")
        for line in shape.lines {
            XCTAssertTrue(rows[Int(line.line)]?.title.hasPrefix(String(line.count)) == true, "exact count in the tooltip, line \(line.line)")
        }
        XCTAssertEqual(rows.filter { $0.value.state == "par" }.keys.sorted(), shape.lines.filter(\.isPartial).map { Int($0.line) })
        XCTAssertEqual(try page.text("count(//tr[@class='par']//span[@class='u'])"), String(shape.lines.filter(\.isPartial).count))
        XCTAssertEqual(try page.text("count(//table[contains(@class,'functions')]/tbody/tr)"),
                       String(shape.functions.count + shape.functions.reduce(0) { $0 + $1.closures.count }))
    }

    func testHostileMarkupIsTextInChromium() throws {
        let output = folder.appendingPathComponent("report")
        let result = try TestscopeProcess.run(try TestscopeProcess.recordedReportArguments("Hostile") + ["--output", output.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let model = try Self.model("Hostile")
        let file = try XCTUnwrap(model.files.first)
        let source = try XCTUnwrap(SourceText.read(URL(fileURLWithPath: file.path)))
        let pageName = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("files").path).first)
        for name in ["index.html", "files/" + pageName] {
            let page = try Chromium.load(output.appendingPathComponent(name), in: folder)
            page.assertClean()
            XCTAssertEqual(try page.text("count(//script)"), "2", "\(name): no injected script element")
            XCTAssertEqual(try page.text("count(//img) + count(//b) + count(//textarea)"), "0", "\(name): no injected element")
            let where_ = name == "index.html" ? "//table[contains(@class,'files')]/tbody/tr[1]/td[1]" : "//title"
            XCTAssertTrue(try page.text(where_).hasPrefix(file.relativePath), "\(name): the file name \(file.relativePath) as text")
        }
        let page = try Chromium.load(output.appendingPathComponent("files/" + pageName), in: folder)
        XCTAssertEqual(try page.text("//table[contains(@class,'functions')]/tbody/tr[td[2]='4']/td[1]"),
                       "static Hostile.`<script>alert(\"x&y\")</script>`() -> String")
        for line in [1, 4, 5, 10, 19] {
            XCTAssertEqual(try page.text("//tr[@id='L\(line)']/td[@class='code']"), source.line(line), "line \(line) is its source text")
        }
        XCTAssertEqual(try page.text("//tr[@id='L10']//span[@class='u']"), #"{ return "<b onmouseover=\"alert(2)\">never</b> & \"never\"" }"#)
    }

    func testSingleFileReportSwitchesViewsInChromium() throws {
        let output = folder.appendingPathComponent("single")
        let result = try TestscopeProcess.run(try TestscopeProcess.recordedReportArguments("Inventory")
            + ["--format", "html", "--html-single-file", "--output", output.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        // One page, and the folder's page manifest (docs/output-folder.md).
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path).sorted(), [".gitignore", ".testscope-pages.json", "index.html"])
        let model = try Self.model("Inventory")
        let index = try Chromium.load(output.appendingPathComponent("index.html"), in: folder)
        index.assertClean()
        XCTAssertEqual(try index.text("//section[@id='index']/@class"), "view active")
        let second = try Chromium.load(output.appendingPathComponent("index.html"), fragment: "f2-L3", in: folder)
        second.assertClean()
        XCTAssertEqual(try second.text("//section[@id='f2']/@class"), "view active")
        XCTAssertEqual(try second.text("//section[@id='index']/@class"), "view")
        XCTAssertTrue(try second.text("//section[@id='f2']//h1").hasSuffix(HTMLTestPaths.base(model.files[1].relativePath)))
    }

    /// Keys pressed in the real page (a harness page frames it and sends keydown events): j/k walk the
    /// starts of the uncovered runs, n/p every partially covered line, both wrapping around.
    func testKeyboardJumpsToUncoveredAndPartialLines() throws {
        let output = folder.appendingPathComponent("report")
        let result = try TestscopeProcess.run(try TestscopeProcess.recordedReportArguments("Inventory") + ["--format", "html", "--output", output.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let file = try XCTUnwrap(try Self.model("Inventory").files.first { $0.relativePath.hasSuffix("Pricing/Discount.swift") })
        let uncovered = Set(file.lines.filter { $0.count == 0 }.map(\.line))
        let starts = uncovered.filter { !uncovered.contains($0 - 1) }.sorted().map { "#L\($0)" }
        let partial = file.lines.filter(\.isPartial).map { "#L\($0.line)" }
        XCTAssertGreaterThan(starts.count, 1)
        XCTAssertGreaterThan(partial.count, 1)
        let keys = String(repeating: "j", count: starts.count + 1) + "k" + String(repeating: "n", count: partial.count) + "p"
        let expected = starts + [starts[0], starts.last!] + partial + [partial[partial.count - 2]]
        let harness = output.appendingPathComponent("keys.html")
        try """
        <!DOCTYPE html><html><body><iframe id="f" src="files/Sources.InventoryCore.Pricing.Discount.swift.html" width="1200" height="800"></iframe>
        <pre id="out">not run</pre><script>
        document.getElementById('f').addEventListener('load', function () {
          var w = this.contentWindow, out = [];
          '\(keys)'.split('').forEach(function (k) {
            w.document.dispatchEvent(new w.KeyboardEvent('keydown', { key: k, bubbles: true }));
            out.push(w.location.hash);
          });
          document.getElementById('out').textContent = out.join(' ');
        });
        </script></body></html>
        """.write(to: harness, atomically: true, encoding: .utf8)
        let page = try Chromium.load(harness, in: folder, extraArguments: ["--allow-file-access-from-files"])
        XCTAssertEqual(try page.text("//pre[@id='out']"), expected.joined(separator: " "), "keys \(keys)")
    }

    /// The index's controls used in the real page: the filter box, "hide fully covered", sorting by
    /// line coverage, and the theme toggle, which a second page load remembers.
    func testIndexFilterSortAndRememberedTheme() throws {
        let output = folder.appendingPathComponent("report")
        let result = try TestscopeProcess.run(try TestscopeProcess.recordedReportArguments("Inventory") + ["--format", "html", "--output", output.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let files = try Self.model("Inventory").files
        let harness = output.appendingPathComponent("controls.html")
        try """
        <!DOCTYPE html><html><body><iframe id="a" src="index.html"></iframe><pre id="out">not run</pre><script>
        var results = {};
        function names(d) {
          return Array.prototype.filter.call(d.querySelectorAll('table.files tbody tr'), function (r) { return !r.hidden; })
            .map(function (r) { return r.getAttribute('data-name'); });
        }
        document.getElementById('a').addEventListener('load', function () {
          var w = this.contentWindow, d = w.document;
          var input = d.querySelector('.filter'), hide = d.querySelector('.hide-covered');
          input.value = 'MODELS/'; input.dispatchEvent(new w.Event('input'));
          results.filtered = names(d);
          input.value = ''; input.dispatchEvent(new w.Event('input'));
          hide.checked = true; hide.dispatchEvent(new w.Event('change'));
          results.notFull = names(d);
          hide.checked = false; hide.dispatchEvent(new w.Event('change'));
          d.querySelector('th[data-key="lines"] button').click();
          results.byLines = names(d);
          d.querySelector('th[data-key="lines"] button').click();
          results.byLinesDescending = names(d);
          d.getElementById('theme-toggle').click(); d.getElementById('theme-toggle').click();
          results.theme = d.documentElement.getAttribute('data-theme');
          var again = document.createElement('iframe');
          again.addEventListener('load', function () {
            results.remembered = again.contentDocument.documentElement.getAttribute('data-theme');
            document.getElementById('out').textContent = JSON.stringify(results);
          });
          again.src = 'index.html';
          document.body.appendChild(again);
        });
        </script></body></html>
        """.write(to: harness, atomically: true, encoding: .utf8)
        let page = try Chromium.load(harness, in: folder, extraArguments: ["--allow-file-access-from-files"])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try page.text("//pre[@id='out']").utf8)) as? [String: Any])
        XCTAssertEqual(json["filtered"] as? [String], files.map(\.relativePath).filter { $0.lowercased().contains("models/") })
        let full = { (f: FileCoverage) in f.summary.lines.missed == 0 && f.summary.functions.missed == 0 && f.summary.regions.missed == 0 }
        XCTAssertEqual(json["notFull"] as? [String], files.filter { !full($0) }.map(\.relativePath))
        let ascending = files.sorted { ($0.summary.lines.percent ?? -1, $0.relativePath) < ($1.summary.lines.percent ?? -1, $1.relativePath) }
        XCTAssertEqual(json["byLines"] as? [String], ascending.map(\.relativePath))
        XCTAssertEqual(json["byLinesDescending"] as? [String], ascending.reversed().map(\.relativePath))
        XCTAssertEqual(json["theme"] as? String, "dark", "auto → light → dark")
        XCTAssertEqual(json["remembered"] as? String, "dark", "the choice is remembered")
    }

    func testBrokenTemplatesAreOneErrorLineAndStatus65() throws {
        let templates = folder.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        try "<h1>{{#totals}}never closed\n".write(to: templates.appendingPathComponent("index.mustache"), atomically: true, encoding: .utf8)
        let cases: [(String, String)] = [
            (templates.path, "testscope: error: template \(templates.path)/index.mustache line 2"),
            (folder.appendingPathComponent("missing").path, "testscope: error: templates folder \(folder.path)/missing does not exist"),
            (folder.path, "testscope: error: the templates folder \(folder.path) holds none of Testscope's templates"),
        ]
        for (directory, expected) in cases {
            let output = folder.appendingPathComponent("out-\(UUID().uuidString)")
            let result = try TestscopeProcess.run(try TestscopeProcess.recordedReportArguments("Shapes")
                + ["--templates", directory, "--output", output.path])
            XCTAssertEqual(result.status, 65, result.stderr)
            XCTAssertEqual(result.errorLines.count, 1, result.stderr)
            XCTAssertTrue(result.errorLines.first?.hasPrefix(expected) == true, "\(result.stderr)\nexpected: \(expected)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("index.html").path), "nothing written")
        }
    }

    // MARK: - Expected values: the model and llvm-cov's own output

    /// The coverage model of a recorded fixture, as `testscope report` builds it.
    static func model(_ sample: String) throws -> CoverageModel {
        let root = TestscopeProcess.samples.appendingPathComponent("packages/\(sample)")
        let options = CoverageBuildOptions(
            packageRoot: root, layout: .conventional(root: root), filter: SourceFilter(root: root.path),
            pathEquivalences: [PathEquivalence(from: try TestscopeProcess.recordedRoot(sample), to: root.path)],
            demangler: SwiftDemangler(library: try Toolchain.locate().demangler))
        return try CoverageBuilder(options: options).build(exports: [TestscopeProcess.samples.appendingPathComponent("recorded/\(sample)/coverage.json")])
    }

    /// The counts `llvm-cov show` printed for a file (recorded/<sample>/show.txt), by line.
    static func llvmCovShowCounts(_ sample: String, file: String) throws -> [Int: String] {
        let show = try String(contentsOf: TestscopeProcess.samples.appendingPathComponent("recorded/\(sample)/show.txt"), encoding: .utf8)
        var counts: [Int: String] = [:]
        var inFile = false
        for line in show.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("/") && line.hasSuffix(":") { inFile = line.hasSuffix("/" + file + ":"); continue }
            guard inFile, !line.hasPrefix("  |"), !line.hasPrefix("  -") else { continue }
            let parts = line.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, let number = Int(parts[0].trimmingCharacters(in: .whitespaces)) else { continue }
            let count = parts[1].trimmingCharacters(in: .whitespaces)
            if !count.isEmpty { counts[number] = count }
        }
        return counts
    }
}

/// Path helpers of the browser tests.
enum HTMLTestPaths {
    static func base(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }
}

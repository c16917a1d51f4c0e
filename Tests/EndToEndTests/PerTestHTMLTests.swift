import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeReports

/// The HTML views of `run --per-test-coverage` (docs/per-test-coverage.md) on a real run of the Shapes
/// fixture, used in headless Chromium: a line's tests link to their entries on the Tests page, the
/// function table's "tests" column, the "covered only by" filter, and a test's files and functions on
/// the Tests page. Every expected value comes from `per-test.json`, `coverage.json` and `report --covered-by`.
/// `TESTSCOPE_SCREENSHOTS=DIR` keeps the screenshots there (docs/per-test-coverage.md shows them).
final class PerTestHTMLTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws { folder = try TestscopeProcess.temporaryDirectory("pertest-html") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    static let file = "Sources/Shapes/Shape.swift", page = "files/Sources.Shapes.Shape.swift.html"

    /// coverage.json's functions of a file (closures flattened after their function): name, first line, count.
    func functions(_ output: URL, path: String) throws -> [(name: String, line: Int, count: Int, closure: Bool)] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("coverage.json"))) as? [String: Any]
        let file = try XCTUnwrap((object?["files"] as? [[String: Any]])?.first { $0["path"] as? String == path }, path)
        var rows: [(String, Int, Int, Bool)] = []
        for function in try XCTUnwrap(file["functions"] as? [[String: Any]]) {
            rows.append((function["name"] as? String ?? "?", function["line"] as? Int ?? -1, function["count"] as? Int ?? -1, false))
            for closure in function["closures"] as? [[String: Any]] ?? [] {
                rows.append((closure["name"] as? String ?? "?", closure["line"] as? Int ?? -1, closure["count"] as? Int ?? -1, true))
            }
        }
        return rows
    }

    /// A harness page beside the report that frames `src`, runs `script` (with `w`, `d`, `out`) once it loaded
    /// and, after `delay` ms, prints `out` as JSON; returns it parsed.
    func harness(_ output: URL, src: String, script: String, delay: Int = 0) throws -> [String: Any] {
        let url = output.appendingPathComponent("harness-\(UUID().uuidString).html")
        try """
        <!DOCTYPE html><html><head><meta charset="utf-8"></head><body><iframe id="f" src="\(src)" width="1200" height="800"></iframe><pre id="out">not run</pre><script>
        document.getElementById('f').addEventListener('load', function () {
          var w = this.contentWindow, d = w.document, out = {};
          try {
          \(script)
          } catch (e) { out.error = String(e) + ' ' + e.stack; }
          setTimeout(function () { document.getElementById('out').textContent = JSON.stringify(out); }, \(delay));
        });
        </script></body></html>
        """.write(to: url, atomically: true, encoding: .utf8)
        let page = try Chromium.load(url, in: folder, extraArguments: ["--allow-file-access-from-files"])
        let text = try page.text("//pre[@id='out']")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
        XCTAssertNil(json["error"], "the harness's script failed")
        return json
    }

    func testLinksFunctionColumnOnlyByFilterAndTestsPageCoverage() throws {
        let shapes = TestscopeProcess.samples.appendingPathComponent("packages/Shapes")
        let plain = folder.appendingPathComponent("plain"), output = folder.appendingPathComponent("per-test")
        let normal = try TestscopeProcess.sharedRun(["run", "--package-path", shapes.path, "--format", "json,html"], output: plain)
        XCTAssertEqual(normal.status, 0, normal.stderr)
        let run = try TestscopeProcess.sharedRun(["run", "--per-test-coverage", "--package-path", shapes.path, "--format", "json,html"], output: output)
        XCTAssertEqual(run.status, 0, run.stderr)
        let data = try JSONDecoder().decode(PerTestCoverage.self, from: Data(contentsOf: output.appendingPathComponent("per-test.json")))
        let file = try XCTUnwrap(data.files.first { $0.path == Self.file })

        // The model's answers for Shape.swift: the distinct tests of each line, and whether code outside tests ran it.
        var testsOf: [Int: Set<String>] = [:], outside = Set<Int>()
        for run in file.runs {
            for range in PerTestCoverage.ranges(run.lines) {
                for line in range.map(Int.init) {
                    if run.context == 0 { outside.insert(line) } else { testsOf[line, default: []].insert(data.contexts[run.context].id) }
                }
            }
        }
        let sole = testsOf.filter { $0.value.count == 1 && !outside.contains($0.key) }
        XCTAssertFalse(sole.isEmpty, "Shape.swift has lines only one test runs")
        let shared = try XCTUnwrap(testsOf.filter { $0.value.count > 1 }.keys.min(), "a line that several tests run")

        // The rule of the "tests" column: a function ran (llvm-cov's count > 0) exactly when some context ran its first line.
        let functions = try functions(output, path: Self.file)
        XCTAssertFalse(functions.isEmpty)
        for function in functions {
            XCTAssertEqual(function.count > 0, testsOf[function.line] != nil || outside.contains(function.line), "\(function.name) line \(function.line)")
        }

        // The file page, used: a line's list, the column, the filter (all lines, then one test's).
        let filePage = try harness(output, src: Self.page, script: """
            var row = d.getElementById('L\(shared)'); out.button = row.querySelector('.ts-pt').textContent; row.querySelector('.ts-pt').click();
            out.list = Array.prototype.map.call(row.nextElementSibling.querySelectorAll('li'), function (li) {
              var a = li.querySelector('a'); return [li.textContent, a ? a.getAttribute('href') : ''];
            });
            var heads = d.querySelectorAll('table.functions thead th'); out.header = heads[heads.length - 1].textContent;
            out.functions = Array.prototype.map.call(d.querySelectorAll('table.functions tbody tr'), function (tr) {
              return [tr.querySelector('td.fn a').textContent, tr.cells[1].textContent, tr.querySelector('td.ts-ptf').textContent];
            });
            var select = d.querySelector('.ts-only-filter select');
            out.options = Array.prototype.map.call(select.options, function (o) { return [o.textContent, o.value]; });
            function marked() {
              return Array.prototype.map.call(d.querySelectorAll('table.source tr.ts-only'), function (tr) {
                return [tr.id, tr.querySelector('.ts-only-by').textContent, tr.querySelector('.ts-only-by a').getAttribute('href')];
              });
            }
            select.value = '*'; select.dispatchEvent(new w.Event('change')); out.any = marked();
            out.dimmed = d.querySelectorAll('table.source.ts-only-on').length;
            select.value = select.options[2].value; select.dispatchEvent(new w.Event('change')); out.one = marked();
            select.value = ''; select.dispatchEvent(new w.Event('change')); out.off = marked().length;
            """)
        let href = { (id: String) in "../tests.html#" + PerTestAnchor.anchor(id) }
        var list = try XCTUnwrap(filePage["list"] as? [[String]])
        // Each entry ends with how often that test (or case, or code outside tests) ran the line: per-test.json's count.
        var countOf: [String: UInt64] = [:]
        for run in file.runs {
            let context = data.contexts[run.context]
            let name = run.context == 0 ? "(outside tests)" : context.id + (context.testCase.map { " [case \($0)]" } ?? "")
            if let count = run.lineCounts.first(where: { $0.line == UInt32(shared) })?.count { countOf[name] = count }
        }
        XCTAssertEqual(list.count, countOf.count, "\(list)")
        for (index, entry) in list.enumerated() {
            let name = String(entry[0].components(separatedBy: " · ")[0])
            let count = try XCTUnwrap(countOf[name], entry[0])
            XCTAssertEqual(entry[0], "\(name) · \(count) time\(count == 1 ? "" : "s")")
            list[index][0] = name
        }
        let listed = Set(list.filter { !$0[1].isEmpty }.map { $0[0].replacingOccurrences(of: #" \[case \d+\]$"#, with: "", options: .regularExpression) })
        XCTAssertEqual(listed, testsOf[shared], "line \(shared) lists the tests that ran it")
        XCTAssertEqual(filePage["button"] as? String, "\(testsOf[shared]!.count) tests", "distinct tests: a parameterized test's cases are one")
        for entry in list where !entry[1].isEmpty {
            let id = entry[0].replacingOccurrences(of: #" \[case \d+\]$"#, with: "", options: .regularExpression)
            XCTAssertEqual(entry[1], href(id), "each test links its entry on the Tests page")
        }
        let testsFor = try TestscopeProcess.run(["report", "--package-path", shapes.path, "--output", output.path, "--tests-for", "\(Self.file):\(shared)"])
        XCTAssertEqual(Set(testsFor.stdout.split(separator: "\n").map(String.init)), listed, "the same tests as report --tests-for")

        XCTAssertEqual(filePage["header"] as? String, "Tests")
        let columns = try XCTUnwrap(filePage["functions"] as? [[String]])
        XCTAssertEqual(columns.count, functions.count)
        for function in functions {
            let row = columns.first { $0[0] == function.name && $0[1] == String(function.line) }
            XCTAssertEqual(row?[2], String(testsOf[function.line]?.count ?? 0), "\(function.name): tests that ran line \(function.line)")
        }

        let any = try XCTUnwrap(filePage["any"] as? [[String]])
        XCTAssertEqual(Set(any.map { $0[0] }), Set(sole.keys.map { "L\($0)" }), "covered only by one test: exactly the model's lines")
        for row in any {
            let id = try XCTUnwrap(sole[Int(row[0].dropFirst())!]?.first)
            XCTAssertEqual(row[1], "only " + id, row[0])
            XCTAssertEqual(row[2], href(id))
        }
        XCTAssertEqual(filePage["dimmed"] as? Int, 1, "the other lines are dimmed")
        let options = try XCTUnwrap(filePage["options"] as? [[String]])
        XCTAssertEqual(options[1][0], "any one test: \(sole.count) line\(sole.count == 1 ? "" : "s")")
        let soleTests = Dictionary(grouping: sole.values.map { $0.first! }, by: { $0 }).mapValues(\.count)
        XCTAssertEqual(Set(options.dropFirst(2).map { $0[0] }), Set(soleTests.map { "\($0.key): \($0.value) line\($0.value == 1 ? "" : "s")" }))
        let chosen = try XCTUnwrap(soleTests.first { href($0.key) == options[2][1] }, "option 2 is one of the sole tests")
        XCTAssertEqual(Set((filePage["one"] as? [[String]] ?? []).map { $0[0] }),
                       Set(sole.filter { $0.value.first == chosen.key }.keys.map { "L\($0)" }), "one test's lines")
        XCTAssertEqual(filePage["off"] as? Int, 0)

        // The Tests page: every test has its entry (the anchor the file pages link), and a link opens what it covered.
        let tests = try Chromium.load(output.appendingPathComponent("tests.html"), in: folder)
        tests.assertClean()
        let ids = Set(data.contexts.dropFirst().map(\.id))
        for id in ids {
            XCTAssertEqual(try tests.text("string(//tr[@id='\(PerTestAnchor.anchor(id))']/@data-test)"), id)
        }
        let test = "ShapesTests.ShapesTests/testLargest"
        let coveredBy = try TestscopeProcess.run(["report", "--package-path", shapes.path, "--output", output.path, "--covered-by", test])
        XCTAssertEqual(coveredBy.status, 0, coveredBy.stderr)
        var expectedFiles: [String] = [], expectedFunctions: [String] = []
        for row in coveredBy.stdout.split(separator: "\n") {
            let parts = row.split(separator: ":", maxSplits: 1).map(String.init)
            let lines = Set(PerTestCoverage.ranges(parts[1]).flatMap { $0.map(Int.init) })
            expectedFiles.append("\(parts[0]) · \(lines.count) line\(lines.count == 1 ? "" : "s")")
            expectedFunctions += try self.functions(output, path: parts[0]).filter { !$0.closure && lines.contains($0.line) }.map { "\($0.name) · \(parts[0])" }
        }
        XCTAssertFalse(expectedFunctions.isEmpty)
        let testsPage = try harness(output, src: "tests.html#" + PerTestAnchor.anchor(test), script: """
            function read(tr) {
              var blocks = tr.querySelectorAll('div');
              return Array.prototype.map.call(blocks, function (b) {
                return Array.prototype.map.call(b.querySelectorAll('li'), function (li) { return [li.textContent, li.querySelector('a').getAttribute('href')]; });
              });
            }
            var row = d.getElementById('\(PerTestAnchor.anchor(test))');
            out.opened = row.nextElementSibling && row.nextElementSibling.classList.contains('ts-cov') ? read(row.nextElementSibling) : null;
            var other = d.querySelector('table.ts-all tr[data-test="ShapesTests.rectSquares(side:)"]');
            other.querySelector('.ts-cov-open').click();
            setTimeout(function () {
              out.clicked = other.nextElementSibling.classList.contains('ts-cov') ? read(other.nextElementSibling) : null;
              out.open = d.querySelectorAll('tr.ts-cov').length;
              d.querySelector('table.ts-all th[data-key="name"] button').click();
              out.afterSort = d.querySelectorAll('tr.ts-cov').length;
            }, 300);
            """, delay: 600)
        let opened = try XCTUnwrap(testsPage["opened"] as? [[[String]]], "the linked test's coverage opens by itself")
        XCTAssertEqual(opened.count, 2)
        XCTAssertEqual(opened[0].map { $0[0] }, expectedFiles, "files with line counts, as report --covered-by")
        XCTAssertEqual(opened[1].map { $0[0] }.sorted(), expectedFunctions.sorted())
        for link in opened.joined() { XCTAssertTrue(link[1].hasPrefix("files/"), link[1]) }
        let squares = Set(data.files.filter { $0.runs.contains { data.contexts[$0.context].id == "ShapesTests.rectSquares(side:)" } }.map(\.path))
        let clicked = try XCTUnwrap(testsPage["clicked"] as? [[[String]]], "a click loads the chunk")
        XCTAssertEqual(Set(clicked.first?.map { String($0[0].split(separator: " ")[0]) } ?? []), squares)
        XCTAssertEqual(testsPage["open"] as? Int, 2)
        XCTAssertEqual(testsPage["afterSort"] as? Int, 0, "sorting closes the lists, which would stay behind their rows")

        // Sizes: tests.html grows by the anchors only; the data is in per-test/.
        let size = { (url: URL) in (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0 }
        let plainSize = size(plain.appendingPathComponent("tests.html")), perTestSize = size(output.appendingPathComponent("tests.html"))
        let chunks = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(PerTestPages.testsFolder).path).filter { $0.hasPrefix("tests-") }.sorted()
        print("tests.html: \(plainSize) bytes plain, \(perTestSize) bytes per-test (\(ids.count) tests, \(chunks.count) chunk(s): "
            + chunks.map { "\($0) \(size(output.appendingPathComponent("per-test/" + $0))) bytes" }.joined(separator: ", ") + ")")
        XCTAssertLessThanOrEqual(perTestSize - plainSize, ids.count * (40 + ids.map(\.utf8.count).max()! * 3), "an id per test, nothing else")
        XCTAssertEqual(size(plain.appendingPathComponent(Self.page)), size(output.appendingPathComponent(Self.page)) - #" data-per-test="1""#.utf8.count)

        let plainTests = try String(contentsOf: plain.appendingPathComponent("tests.html"), encoding: .utf8)
        XCTAssertFalse(Self.htmlTag(plainTests).contains("data-per-test") || plainTests.contains(#"id="test-"#), "a plain run's Tests page is unchanged")
        XCTAssertTrue(Self.htmlTag(try String(contentsOf: output.appendingPathComponent("tests.html"), encoding: .utf8)).contains(#"data-per-test-chunks="1""#))
        XCTAssertFalse(FileManager.default.fileExists(atPath: plain.appendingPathComponent(PerTestPages.testsFolder).path))

        if let keep = ProcessInfo.processInfo.environment["TESTSCOPE_SCREENSHOTS"].map({ URL(fileURLWithPath: $0) }) {
            try screenshots(output, line: shared, test: test, into: keep)
        }
        // A later run without the option leaves none of this run's per-test data behind.
        let again = try TestscopeProcess.run(["run", "--package-path", shapes.path, "--output", output.path, "--format", "json,html"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent(PerTestPages.testsFolder).path))
        XCTAssertFalse(Self.htmlTag(try String(contentsOf: output.appendingPathComponent("tests.html"), encoding: .utf8)).contains("data-per-test"))
    }

    /// The `<html …>` start tag of a page.
    static func htmlTag(_ page: String) -> String {
        page.range(of: "<html").map { String(page[$0.lowerBound...].prefix { $0 != ">" }) } ?? ""
    }

    /// The Hostile fixture (markup in its file name and function names): the per-test views show it as text only.
    func testHostileNamesAreTextInThePerTestViews() throws {
        let hostile = TestscopeProcess.samples.appendingPathComponent("packages/Hostile")
        let output = folder.appendingPathComponent("hostile")
        let run = try TestscopeProcess.run(["run", "--per-test-coverage", "--package-path", hostile.path, "--output", output.path, "--format", "json,html"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let path = "Sources/Hostile/<script>&'q'.swift", test = "HostileTests.HostileTests/testMarkupIsJustText"
        let names = try functions(output, path: path).filter { !$0.closure && $0.count > 0 }.map(\.name)
        XCTAssertTrue(names.contains { $0.contains("<script>") }, "\(names)")
        let page = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("files").path).first { $0.hasSuffix(".swift.html") })
        let filePage = try Chromium.load(output.appendingPathComponent("files/" + page), in: folder)
        filePage.assertClean()
        XCTAssertNotEqual(try filePage.text("count(//td[contains(@class,'ts-ptf')])"), "0", "the tests column")
        let testsPage = try harness(output, src: "tests.html#" + PerTestAnchor.anchor(test), script: """
            var cov = d.getElementById('\(PerTestAnchor.anchor(test))').nextElementSibling;
            out.functions = Array.prototype.map.call(cov.querySelectorAll('div')[1].querySelectorAll('li a'), function (a) { return a.textContent; });
            out.file = cov.querySelector('div li a').textContent;
            out.elements = cov.querySelectorAll('script, img').length;
            out.alerts = d.documentElement.getAttribute('data-alerts');
            """)
        XCTAssertEqual(testsPage["functions"] as? [String], names)
        XCTAssertEqual(testsPage["file"] as? String, path)
        XCTAssertEqual(testsPage["elements"] as? Int, 0, "markup is text")
        XCTAssertTrue(testsPage["alerts"] is NSNull, "no alert ran: \(testsPage["alerts"] ?? "")")
    }

    /// The file page with a line's tests listed and the filter on, its function table, and the Tests page with a test's coverage.
    func screenshots(_ output: URL, line: Int, test: String, into keep: URL) throws {
        let shots = [
            ("per-test-file-page.png", Self.page, """
             d.getElementById('L\(line)').querySelector('.ts-pt').click();
             var s = d.querySelector('.ts-only-filter select'); s.value = '*'; s.dispatchEvent(new w.Event('change'));
             d.querySelector('.source-bar').scrollIntoView(); w.scrollBy(0, -70);
             """, 1300),
            ("per-test-functions.png", Self.page, "d.getElementById('functions').open = true; d.getElementById('functions').scrollIntoView();", 800),
            ("per-test-tests-page.png", "tests.html#" + PerTestAnchor.anchor(test), "d.getElementById('\(PerTestAnchor.anchor(test))').scrollIntoView();", 800),
        ]
        for (name, src, script, height) in shots {
            let harness = output.appendingPathComponent("shot-\(name).html")
            try """
            <!DOCTYPE html><html><body style="margin:0"><iframe id="f" src="\(src)" style="border:0;width:100vw;height:100vh"></iframe><script>
            document.getElementById('f').addEventListener('load', function () { var w = this.contentWindow, d = w.document; \(script) });
            </script></body></html>
            """.write(to: harness, atomically: true, encoding: .utf8)
            let png = keep.appendingPathComponent(name)
            XCTAssertGreaterThan(try Chromium.screenshot(harness, theme: "light", width: 1280, height: height, to: png, in: folder,
                                                         extraArguments: ["--allow-file-access-from-files"]), 20_000, name)
        }
    }
}

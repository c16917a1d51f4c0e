import Foundation
import TestscopeCoverage
import TestscopeExecution

/// The HTML report's per-test data (`run --per-test-coverage`), loaded by `per-test/per-test.js` (which
/// `report.js` loads on such a run's pages only) when a page is opened (a script, not `fetch`, so that it loads from `file://`), so that pages stay the size they
/// are whatever the number of tests:
/// - one `files/<page>.tests.js` beside each file page: `testscopePerTest({"tests": [names],
///   "hrefs": [link on the Tests page, or null outside tests], "lines": {"12": [0, 3]}, "counts": {"12": [8, 1]}})`,
///   each line listing indexes into this file's `tests` and how often each ran it; the function table's "tests" column and the "covered only
///   by" filter are computed from it in the page;
/// - `per-test/tests-<k>.js`: `testscopeTestCoverage(k, {"<test id>": {"files": […], "functions": […]}})`, what each test covered (files with line counts, functions), the tests
///   spread over chunks by `PerTestAnchor.chunk`, so that the Tests page loads one small file per click.
package enum PerTestPages {
    /// Folder of the Tests page's chunks, in the output folder.
    package static let testsFolder = "per-test"
    /// Tests per chunk of the Tests page's data: a click loads one chunk; 1,000 tests make 16.
    static let testsPerChunk = 64

    struct FileData: Encodable {
        var tests: [String]
        var hrefs: [String?]
        var lines: [String: [Int]]
        /// How often each of a line's `lines` entries ran it, in the same order (null: not recorded).
        var counts: [String: [UInt64?]]
    }

    /// What one test covered, for its entry on the Tests page.
    struct TestData: Encodable {
        struct File: Encodable { var path: String; var href: String; var lines: Int }
        struct Function: Encodable { var name: String; var path: String; var href: String }
        var files: [File] = []
        var functions: [Function] = []
    }

    /// Writes the data files of the multi-page report and `per-test/per-test.js` (the script that reads them,
    /// from `templates`); returns the number of chunks of the Tests page's data. `report` is the run's
    /// coverage model (the functions of each file, in the same order as `data.files`).
    @discardableResult
    package static func write(_ data: PerTestCoverage, model report: CoverageModel, templates: HTMLTemplates, into output: OutputFolder) throws -> Int {
        let pages = HTMLPageNames.pages(for: data.files.map(\.path))
        let functions = Dictionary(report.files.map { ($0.relativePath, $0.functions) }, uniquingKeysWith: { first, _ in first })
        var byTest: [String: TestData] = [:]
        _ = try output.subfolder("files")
        // Every file page gets one (no test ran some files): a page that loads a missing script logs an error.
        for (file, page) in zip(data.files, pages) {
            var names: [String] = [], hrefs: [String?] = []
            var lines: [UInt32: [Int]] = [:]
            var counts: [UInt32: [UInt64?]] = [:]
            var linesOf: [String: Set<UInt32>] = [:]
            for run in file.runs where data.contexts.indices.contains(run.context) {
                let context = data.contexts[run.context]
                names.append(run.context == 0 ? "(outside tests)" : context.id + (context.testCase.map { " [case \($0)]" } ?? ""))
                hrefs.append(run.context == 0 ? nil : "../tests.html#" + PerTestAnchor.anchor(context.id))
                for (line, count) in run.lineCounts {
                    lines[line, default: []].append(names.count - 1)
                    counts[line, default: []].append(count)
                    if run.context > 0 { linesOf[context.id, default: []].insert(line) }
                }
            }
            let body = FileData(tests: names, hrefs: hrefs, lines: Dictionary(uniqueKeysWithValues: lines.map { (String($0.key), $0.value) }),
                                counts: Dictionary(uniqueKeysWithValues: counts.map { (String($0.key), $0.value) }))
            try writeScript("testscopePerTest(", body, to: "files/" + String(page.dropLast(".html".count)) + ".tests.js", in: output)
            for (test, set) in linesOf {
                byTest[test, default: TestData()].files.append(.init(path: file.path, href: "files/" + page, lines: set.count))
                // A test ran a function when it ran the function's first line (`PerTestAnchor`'s note, docs/per-test-coverage.md).
                for function in functions[file.path] ?? [] where set.contains(function.line) {
                    byTest[test]!.functions.append(.init(name: function.name, path: file.path, href: "files/\(page)#L\(function.line)"))
                }
            }
        }
        let ids = Set(data.contexts.dropFirst().map(\.id)).union(byTest.keys)
        let chunkCount = max(1, (ids.count + testsPerChunk - 1) / testsPerChunk)
        var chunks = [[String: TestData]](repeating: [:], count: chunkCount)
        for id in ids { chunks[PerTestAnchor.chunk(id, of: chunkCount)][id] = byTest[id] ?? TestData() }
        _ = try output.subfolder(testsFolder)
        try AtomicFileWriter.write(templates.assets["per-test.js"] ?? "", to: try output.file(testsFolder + "/per-test.js"))
        for (k, chunk) in chunks.enumerated() {
            try writeScript("testscopeTestCoverage(\(k), ", chunk, to: "\(testsFolder)/tests-\(k).js", in: output)
        }
        return chunkCount
    }

    /// `call` + JSON + `);` — JSON is a JavaScript expression; `<` is escaped anyway, as in every script Testscope writes.
    static func writeScript<Body: Encodable>(_ call: String, _ body: Body, to path: String, in output: OutputFolder) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = String(decoding: try encoder.encode(body), as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
        try AtomicFileWriter.write(call + json + ");\n", to: try output.file(path))
    }
}

/// A test's place on the Tests page of a per-test run and the chunk of `per-test/` that holds what it
/// covered. Both come from the test's id only (every case of a parameterized test is the same test).
package enum PerTestAnchor {
    /// `test-` and the id with every byte other than ASCII letters, digits, `.` and `-` written `_XX` (hex,
    /// `_` too, so different ids never meet): safe in an `id`, a URL fragment and a file name, for any id.
    package static func anchor(_ id: String) -> String {
        var out = "test-"
        for byte in id.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "-"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "_" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// 32-bit FNV-1a over the id's UTF-16 code units, modulo `count`: `per-test.js` computes the same with
    /// `charCodeAt` and `Math.imul`, so the page needs no per-test attribute to find a test's chunk.
    package static func chunk(_ id: String, of count: Int) -> Int {
        var hash: UInt32 = 2_166_136_261
        for unit in id.utf16 {
            hash ^= UInt32(unit)
            hash = hash &* 16_777_619
        }
        return Int(hash % UInt32(max(1, count)))
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}

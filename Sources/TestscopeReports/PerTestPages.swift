import Foundation
import TestscopeCoverage
import TestscopeExecution

/// The HTML report's per-test data (`run --per-test-coverage`): one `files/<page>.tests.js` beside each
/// file page, loaded by `report.js` only when that page is opened (a script,
/// not `fetch`, so that it loads from `file://`), so that pages stay the size they are whatever the
/// number of tests: `testscopePerTest({"tests": [names], "lines": {"12": [0, 3]}})`, each line listing
/// indexes into this file's `tests`.
public enum PerTestPages {
    struct FileData: Encodable {
        var tests: [String]
        var lines: [String: [Int]]
    }

    /// Writes the data files of the multi-page report; returns how many.
    @discardableResult
    public static func write(_ data: PerTestCoverage, into output: OutputFolder) throws -> Int {
        let pages = HTMLPageNames.pages(for: data.files.map(\.path))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var written = 0
        // Every file page gets one (no test ran some files): a page that loads a missing script logs an error.
        for (file, page) in zip(data.files, pages) {
            var names: [String] = []
            var lines: [UInt32: [Int]] = [:]
            for run in file.runs where data.contexts.indices.contains(run.context) {
                let context = data.contexts[run.context]
                names.append(run.context == 0 ? "(outside tests)" : context.id + (context.testCase.map { " [case \($0)]" } ?? ""))
                for range in PerTestCoverage.ranges(run.lines) {
                    for line in range { lines[line, default: []].append(names.count - 1) }
                }
            }
            let body = FileData(tests: names, lines: Dictionary(uniqueKeysWithValues: lines.map { (String($0.key), $0.value) }))
            // JSON is a JavaScript expression; `<` is escaped anyway, as in every script Testscope writes.
            let json = String(decoding: try encoder.encode(body), as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
            let name = String(page.dropLast(".html".count)) + ".tests.js"
            _ = try output.subfolder("files")
            try AtomicFileWriter.write("testscopePerTest(" + json + ");\n", to: try output.file("files/" + name))
            written += 1
        }
        return written
    }
}

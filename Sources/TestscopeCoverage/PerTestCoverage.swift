import Foundation

/// Which tests ran which lines: the content of `per-test.json` (`docs/per-test-coverage.md`), written by
/// `run --per-test-coverage` and read by `report --tests-for` / `--covered-by`.
package struct PerTestCoverage: Codable, Sendable, Equatable {
    /// The schema's version; a reader refuses another.
    package static let formatVersion = 1
    /// The id of the context of code run outside any test (setup, class `setUp`, static initializers).
    package static let outsideTests = ""

    package var version: Int
    /// Context 0 is "outside tests" (id `""`); then one per test, or per case of a parameterized test.
    package var contexts: [Context]
    /// Tests that ran but whose counts were lost (the process crashed or was killed during the test).
    package var lost: [String]
    /// Report files (package-relative paths, as the other reports show them) with the lines each context ran.
    package var files: [File]

    /// A test, as `swift test list` names it; `testCase` numbers the cases of a parameterized test (from 1).
    package struct Context: Codable, Sendable, Equatable, Hashable {
        package var id: String
        package var testCase: Int?
        enum CodingKeys: String, CodingKey { case id, testCase = "case" }
        package init(id: String, testCase: Int? = nil) {
            self.id = id
            self.testCase = testCase
        }
    }

    /// One source file: for each context that ran some of its lines, those lines as ranges.
    package struct File: Codable, Sendable, Equatable {
        package var path: String
        /// The last executable line the report knows (bounds `--tests-for`).
        package var lastLine: UInt32
        package var runs: [Run]
        package init(path: String, lastLine: UInt32, runs: [Run]) {
            self.path = path
            self.lastLine = lastLine
            self.runs = runs
        }
    }

    /// `lines`: ranges as text, `"3-7,12"` (ascending, disjoint); `counts`: how often the context ran each
    /// of those lines, in the same order, `"8,8,1,2,2,2"` (llvm-cov's line rules applied to the context's
    /// counters alone). Absent in files written before counts were recorded.
    package struct Run: Codable, Sendable, Equatable {
        package var context: Int
        package var lines: String
        package var counts: String?
        package init(context: Int, lines: String, counts: String? = nil) {
            self.context = context
            self.lines = lines
            self.counts = counts
        }

        /// Each line of the run with its count (nil counts when the file has none, or they do not match).
        package var lineCounts: [(line: UInt32, count: UInt64?)] {
            let lines = PerTestCoverage.ranges(self.lines).flatMap { Array($0) }
            let counts = self.counts.map { $0.split(separator: ",").map { UInt64($0) } } ?? []
            return lines.enumerated().map { ($1, counts.count == lines.count ? counts[$0] : nil) }
        }
    }

    package init(contexts: [Context], lost: [String], files: [File]) {
        self.version = Self.formatVersion
        self.contexts = contexts
        self.lost = lost
        self.files = files
    }

    /// The file whose path is `path`, or ends with `/path`, when exactly one does.
    package func file(matching path: String) -> File? {
        if let exact = files.first(where: { $0.path == path }) { return exact }
        let suffix = path.hasPrefix("/") ? path : "/" + path
        let matches = files.filter { ("/" + $0.path).hasSuffix(suffix) || path.hasSuffix("/" + $0.path) }
        return matches.count == 1 ? matches[0] : nil
    }

    /// The tests that ran `line` of `file`, each id once, in context order ("outside tests" left out).
    package func tests(running line: UInt32, in file: File) -> [String] {
        var seen = Set<String>()
        var ids: [String] = []
        for run in file.runs where run.context > 0 && run.context < contexts.count {
            let id = contexts[run.context].id
            if !seen.contains(id), Self.ranges(run.lines).contains(where: { $0.contains(line) }), seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }

    /// What `test` (all its cases) ran: each file's lines as merged ranges, files in report order.
    package func lines(coveredBy test: String) -> [(path: String, ranges: [ClosedRange<UInt32>])] {
        let contextNumbers = Set(contexts.indices.filter { contexts[$0].id == test })
        var result: [(String, [ClosedRange<UInt32>])] = []
        for file in files {
            var lines = Set<UInt32>()
            for run in file.runs where contextNumbers.contains(run.context) {
                for range in Self.ranges(run.lines) { lines.formUnion(range) }
            }
            if !lines.isEmpty { result.append((file.path, Self.ranges(of: lines))) }
        }
        return result
    }

    /// Sorted line numbers as maximal ranges.
    package static func ranges(of lines: Set<UInt32>) -> [ClosedRange<UInt32>] {
        var ranges: [ClosedRange<UInt32>] = []
        for line in lines.sorted() {
            if let last = ranges.last, last.upperBound &+ 1 == line { ranges[ranges.count - 1] = last.lowerBound...line } else { ranges.append(line...line) }
        }
        return ranges
    }

    /// `"3-7,12"` for ranges.
    package static func text(_ ranges: [ClosedRange<UInt32>]) -> String {
        ranges.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")
    }

    /// Ranges from `"3-7,12"`; a malformed part is skipped.
    package static func ranges(_ text: String) -> [ClosedRange<UInt32>] {
        text.split(separator: ",").compactMap { part in
            let bounds = part.split(separator: "-", maxSplits: 1)
            guard let low = UInt32(bounds[0]) else { return nil }
            guard bounds.count == 2 else { return low...low }
            guard let high = UInt32(bounds[1]), high >= low else { return nil }
            return low...high
        }
    }
}

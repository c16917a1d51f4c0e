import Foundation
import TestscopeCoverage
import TestscopeHistory
import TestscopeTestResults

/// The view model of the Tests page (`tests.mustache`): counts, failures with their messages,
/// locations and source snippets, crashes and timeouts with their evidence, known issues, skips,
/// the slowest tests, performance metrics and every result. Every value is plain text (the template
/// escapes it) except the snippets' `code`, which is highlighted and escaped here.
struct TestsHTMLModel {
    let run: TestRunResults
    let paths: PathDisplay
    /// Prefix of every `id` on the page (`tests-` inside the single-file report).
    let anchorPrefix: String
    var slowestCount = 20
    let snippets = TestSourceSnippets()
    /// The test's last runs from `--history` (by `HistoryExecution.key`), drawn as a sparkline in "All tests".
    var sparklines: [String: [HistoryTimelinePoint]] = [:]
    /// `run --per-test-coverage`: each test's first "All tests" row carries its `PerTestAnchor` id.
    var testAnchors = false

    /// Where a result's details are: its index in `run.results`, counted from 1 (`t3`).
    func anchor(_ index: Int) -> String { "\(anchorPrefix)t\(index + 1)" }

    /// The order of the "All tests" table: crashes, timeouts, failures, expected failures, skips, passes.
    static func rank(_ outcome: TestOutcome) -> Int {
        switch outcome {
        case .crashed: return 0
        case .timedOut: return 1
        case .failed: return 2
        case .expectedFailure: return 3
        case .skipped: return 4
        case .passed: return 5
        }
    }

    static func label(_ outcome: TestOutcome) -> String {
        outcome == .timedOut ? "timed out" : outcome == .expectedFailure ? "expected failure" : outcome.rawValue
    }

    /// `Timed out`, `Expected failure`: a card's title.
    static func cardLabel(_ outcome: TestOutcome) -> String {
        let text = label(outcome)
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    /// The count cards: total, then each outcome that a run can have.
    static func counts(_ run: TestRunResults) -> [CountCard] {
        var cards = [CountCard(key: "total", label: "Total", value: String(run.results.count), level: "na")]
        for outcome in [TestOutcome.passed, .failed, .crashed, .timedOut, .skipped, .expectedFailure] {
            let n = run.count(outcome)
            let level = n == 0 ? "na" : outcome.isFailure ? "lo" : outcome == .passed ? "hi" : outcome == .expectedFailure ? "mid" : "na"
            cards.append(CountCard(key: outcome.rawValue, label: cardLabel(outcome), value: String(n), level: level))
        }
        return cards
    }

    /// The page body's model; `package` and `facts` are the page head's.
    func model(package: String, facts: [FactModel]) -> TestsPageModel {
        let indexed = Array(run.results.enumerated())
        let failures = indexed.filter { $0.element.outcome.isFailure }
        let known = indexed.filter { $0.element.outcome == .expectedFailure }
        let skipped = indexed.filter { $0.element.outcome == .skipped }
        let timed = indexed.filter { $0.element.duration != nil }
            .sorted { ($0.element.duration!, $1.offset) > ($1.element.duration!, $0.offset) }.prefix(slowestCount)
        let flaky = indexed.filter { run.isFlaky($0.element) }
        let linked = Set(failures.map(\.offset) + flaky.map(\.offset) + known.map(\.offset) + skipped.map(\.offset))
        let all = indexed.sorted { (Self.rank($0.element.outcome), $0.offset) < (Self.rank($1.element.outcome), $1.offset) }
        var anchored = Set<String>()
        return TestsPageModel(
            package: package, facts: facts, prefix: anchorPrefix, counts: Self.counts(run), summary: run.summaryLine,
            relaunches: run.relaunches > 0 ? "The test binary was relaunched \(run.relaunches) time\(run.relaunches == 1 ? "" : "s") after a crash or a timeout, so the tests after it still ran." : nil,
            failures: failures.map { failure($0.element, index: $0.offset) },
            flaky: flaky.map { self.flaky($0.element, index: $0.offset) },
            known: known.map { knownIssue($0.element, index: $0.offset) },
            skipped: skipped.map { i, r in SkippedRow(names: names(r), anchor: anchor(i), reason: r.skipReason.map { BoundedText.cap($0) }) },
            slowest: timed.enumerated().map { rank, entry in
                SlowRow(names: names(entry.element), rank: String(rank + 1), duration: TestText.seconds(entry.element.duration!),
                        href: linked.contains(entry.offset) ? "#" + anchor(entry.offset) : nil)
            },
            slowestLimit: String(slowestCount),
            slowestNote: run.durationsMostlyWaiting ? TestRunResults.waitingNote : nil,
            metrics: indexed.flatMap { i, result in result.metrics.map { metric($0, result: result) } },
            all: all.map { i, r in
                ResultRow(names: names(r), rank: String(Self.rank(r.outcome)), durationSort: r.duration.map { String($0) } ?? "-1",
                          duration: r.duration.map(TestText.seconds), framework: r.framework.rawValue,
                          href: linked.contains(i) ? "#" + anchor(i) : nil,
                          testAnchor: testAnchors && anchored.insert(r.id).inserted ? anchorPrefix + PerTestAnchor.anchor(r.id) : nil,
                          sparkline: sparklines[HistoryExecution.key(id: r.id, arguments: r.arguments)].map {
                              HistoryCharts.sparkline($0, label: "last \($0.count) runs of \(r.id)")
                          })
            })
    }

    /// Name, class, id, display name and outcome: what every list shows of a test.
    func names(_ r: TestCaseResult) -> TestNames {
        TestNames(name: r.caseName, className: r.className.isEmpty ? nil : r.className, id: r.id,
                  filterName: "\(r.id)\(r.arguments.map { " [\($0)]" } ?? "") \(r.displayName ?? "")",
                  displayName: r.displayName, outcome: r.outcome.rawValue, outcomeLabel: Self.label(r.outcome))
    }

    func failure(_ r: TestCaseResult, index: Int) -> FailureModel {
        // The lines around a place once per test: a loop of assertions failing on one line showed the
        // same snippet for each (the issue still names its line).
        var shown = Set<String>()
        let issues = r.issues.enumerated().filter { $0.element.isFailure }.map { k, issue in
            let place = issue.location.map { "\($0.file):\($0.line)" }
            return self.issue(issue, anchor: "\(anchor(index))-\(k + 1)", snippet: place.map { shown.insert($0).inserted } ?? false)
        }
        let warnings = r.issues.filter { $0.kind == .warning }.map { issue($0, anchor: "", snippet: false) }
        return FailureModel(names: names(r), anchor: anchor(index), framework: r.framework.rawValue,
                            duration: r.duration.map(TestText.seconds), issues: issues, warnings: warnings,
                            crash: r.crash.map { crashModel($0, result: r, anchor: "\(anchor(index))-crash") },
                            output: BoundedText.lines(r.output, lineLimit: BoundedText.messageLimit), label: run.failureLabels[r.id])
    }

    /// A test that passed on a retry: its first failed attempt, with its label, its retries and the history's evidence.
    func flaky(_ r: TestCaseResult, index: Int) -> FailureModel {
        let attempts = run.otherAttempts[r.id] ?? []
        var model = failure(attempts.first(where: \.outcome.isFailure) ?? r, index: index)
        model.anchor = anchor(index)
        model.retried = "Passed on attempt \(attempts.count + 1) of \(attempts.count + 1)"
            + (run.flakyEvidence[r.id].map { "; the history: \($0)" } ?? "")
        return model
    }

    func knownIssue(_ r: TestCaseResult, index: Int) -> KnownIssueModel {
        KnownIssueModel(names: names(r), anchor: anchor(index),
                        issues: r.issues.filter { $0.kind == .knownIssue }.map { issue($0, anchor: "", snippet: false) })
    }

    func issue(_ issue: TestIssue, anchor: String, snippet: Bool) -> IssueModel {
        IssueModel(anchor: anchor, kind: issue.kind.rawValue, message: BoundedText.cap(issue.message),
                   details: BoundedText.lines(issue.details.map { BoundedText.cap($0) }),
                   location: issue.location.map(place), snippet: snippet ? issue.location.map { snippets.snippet($0, paths: paths) } : nil)
    }

    func crashModel(_ crash: CrashEvidence, result: TestCaseResult, anchor: String) -> CrashModel {
        let timedOut = result.outcome == .timedOut
        return CrashModel(anchor: anchor, timedOut: timedOut, limit: timedOut ? result.duration.map(TestText.seconds) : nil,
                          signal: crash.signal.map { s in "\(s)" + (TestText.signalName(s).map { " (\($0))" } ?? "") },
                          reason: crash.reason.map { BoundedText.cap($0) }, fatalError: crash.fatalError.map { BoundedText.cap($0) },
                          frames: BoundedText.lines(crash.frames.map { BoundedText.cap($0) }),
                          location: crash.location.map(place), snippet: crash.location.map { snippets.snippet($0, paths: paths) })
    }

    func metric(_ m: PerformanceMetric, result: TestCaseResult) -> MetricRow {
        let mean = m.values.isEmpty ? 0 : m.values.reduce(0, +) / Double(m.values.count)
        // XCTest prints the average with 3 decimals: 0.000 for sub-millisecond blocks, so the mean of the values says more.
        let roundedAway = m.average == 0 && mean != 0
        return MetricRow(names: names(result), metric: m.name, unit: m.unit, average: Self.number(roundedAway ? mean : m.average),
                         averageNote: roundedAway ? "the mean of the values (the log printed 0.000)" : nil,
                         rsd: Self.number(m.relativeStandardDeviation) + "%",
                         values: m.values.map(Self.number).joined(separator: ", "), valueCount: String(m.values.count))
    }

    func place(_ location: SourceLocation) -> String {
        "\(paths.relative(location.file)):\(location.line)" + (location.column.map { ":\($0)" } ?? "")
    }

    /// Up to 6 significant digits, no exponent for everyday values: `0.000322`, `32.908`, `1500`.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return String(value) }
        if value == 0 { return "0" }
        let magnitude = abs(value)
        if magnitude >= 1e-4 && magnitude < 1e9 {
            let decimals = max(0, 5 - Int(floor(log10(magnitude))))
            var text = String(format: "%.\(decimals)f", value)
            if text.contains(".") {
                while text.hasSuffix("0") { text.removeLast() }
                if text.hasSuffix(".") { text.removeLast() }
            }
            return text
        }
        return String(format: "%.6g", value)
    }
}

/// The source lines around a failure (±3), highlighted like the file pages, the failing line
/// marked. Each file is read and highlighted once per page.
final class TestSourceSnippets {
    static let context = 3
    private var cache: [String: (source: SourceText, tokens: [SwiftHighlighter.Token])?] = [:]

    func snippet(_ location: SourceLocation, paths: PathDisplay) -> SnippetModel {
        var model = SnippetModel(path: paths.relative(location.file), line: String(location.line))
        let entry: (source: SourceText, tokens: [SwiftHighlighter.Token])?
        if let cached = cache[location.file] {
            entry = cached
        } else {
            entry = SourceText.read(URL(fileURLWithPath: location.file, isDirectory: false)).map { ($0, SwiftHighlighter.tokens($0.bytes)) }
            cache[location.file] = entry
        }
        guard let (source, tokens) = entry else {
            model.notice = "The source file \(location.file) could not be read (deleted or moved since the run), so its lines are not shown."
            return model
        }
        guard location.line >= 1 && location.line <= source.lineCount else {
            model.notice = "The source has \(source.lineCount) lines but the failure is on line \(location.line): it changed since the run."
            return model
        }
        var rows: [SnippetModel.Row] = []
        for number in max(1, location.line - Self.context)...min(source.lineCount, location.line + Self.context) {
            let range = source.lineRanges[number - 1]
            var first = 0, last = tokens.count
            while first < last {  // the first token ending after the line's start
                let middle = (first + last) / 2
                if tokens[middle].end <= range.lowerBound { first = middle + 1 } else { last = middle }
            }
            var code = ByteWriter(capacity: 256)
            source.bytes.withUnsafeBufferPointer { bytes in
                tokens.withUnsafeBufferPointer { tokens in
                    HTMLSourceView.appendCode(bytes, validUTF8: source.isValidUTF8, range: range, tokens: tokens, firstToken: first,
                                              uncovered: [], to: &code)
                }
            }
            rows.append(SnippetModel.Row(number: String(number), code: String(decoding: code.bytes, as: UTF8.self), hit: number == location.line))
        }
        model.rows = rows
        return model
    }
}

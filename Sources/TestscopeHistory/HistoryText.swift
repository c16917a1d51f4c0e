import Foundation

/// `testscope history FILE`'s text: the selection, a line per test, what changed recently, the coverage
/// trend and a quarantine file to start from. Plain text (no colour): it is also piped into files.
package struct HistoryText: Sendable {
    package var path: String
    package var since: Date?
    package var branch: String?
    /// Tests listed at most (the most serious first); the rest are counted.
    package var limit = 200

    package init(path: String, since: Date? = nil, branch: String? = nil) {
        self.path = path
        self.since = since
        self.branch = branch
    }

    package func render(_ analysis: HistoryAnalysis) -> String {
        let records = analysis.runs
        var out: [String] = []
        var selection = [since.map { "since \(Self.day($0))" }, branch.map { "on branch \($0)" }].compactMap { $0 }.joined(separator: ", ")
        if !selection.isEmpty { selection = " (" + selection + ")" }
        guard let first = records.first, let last = records.last else {
            return "History \(path): no runs\(selection)\n"
        }
        out.append("History \(path): \(records.count) run\(records.count == 1 ? "" : "s")\(selection), \(Self.day(first.run.startedAt)) to \(Self.day(last.run.startedAt)), \(analysis.tests.count) tests")
        out.append("A test is called flaky from \(HistoryAnalysis.minimumSample) pass/fail runs on (skipped runs are not counted); broken after \(HistoryAnalysis.brokenStreak) failures in a row.")
        out.append("")
        // A test that passed every one of its few runs says nothing yet (after the first runs, that is
        // every test): they are counted on one line; the rows are the tests that say something.
        let waiting = analysis.tests.filter { $0.state == .tooFewRuns && $0.runs > 0 && $0.failures == 0 }
        let rows = analysis.tests.filter { !($0.state == .tooFewRuns && $0.runs > 0 && $0.failures == 0) }
        if !rows.isEmpty { out.append(Self.row("state", "runs", "fail", "flip rate", "same-code", "duration", "test")) }
        for stats in rows.prefix(limit) {
            out.append(Self.row(stats.state.rawValue, String(stats.runs), String(stats.failures),
                                stats.flipRate.map { String(format: "%.2f", $0) } ?? "–", String(stats.sameCodeDisagreements),
                                Self.durationTrend(stats), stats.test))
            if stats.state != .healthy && stats.state != .tooFewRuns { out.append("      \(stats.reason)\(stats.lastFailure.map { "; last failure: \($0)" } ?? "")") }
        }
        if rows.count > limit { out.append("  … and \(rows.count - limit) more tests") }
        if let fewest = waiting.map(\.runs).min(), let most = waiting.map(\.runs).max() {
            let runs = fewest == most ? "\(most)" : "\(fewest)–\(most)"
            let more = HistoryAnalysis.minimumSample - fewest
            out.append("  too-few-runs: \(waiting.count) test\(waiting.count == 1 ? "" : "s") passed every run so far (\(runs) of the \(HistoryAnalysis.minimumSample) "
                       + "runs a verdict needs): record \(more) more run\(more == 1 ? "" : "s") with --history")
        }
        out.append("")
        out.append("Recently (the last \(HistoryAnalysis.recentRuns) runs against the ones before):")
        out.append("  became flaky:  " + Self.list(analysis.tests.filter(\.becameFlaky).map(\.test)))
        out.append("  became broken: " + Self.list(analysis.tests.filter(\.becameBroken).map(\.test)))
        out.append("  slower:        " + Self.list(analysis.tests.filter(\.becameSlower).map { "\($0.test) (\(Self.durationTrend($0)))" }))
        out.append("")
        out.append("Coverage (lines): " + Self.coverageTrend(analysis.coverage))
        out.append("")
        let quarantine = analysis.quarantineLines
        if quarantine.isEmpty {
            out.append("Suggested quarantine file: none (no test is flaky on \(HistoryAnalysis.minimumSample) or more runs)")
        } else {
            out.append("Suggested quarantine file (for testscope flaky --quarantine FILE; broken tests need a fix instead):")
            out += quarantine.map { "  " + $0 }
        }
        return out.joined(separator: "\n") + "\n"
    }

    static func row(_ state: String, _ runs: String, _ fail: String, _ flip: String, _ same: String, _ duration: String, _ test: String) -> String {
        func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
            let space = String(repeating: " ", count: max(0, width - text.count))
            return left ? text + space : space + text
        }
        return "  " + pad(state, 13, left: true) + pad(runs, 5) + pad(fail, 6) + pad(flip, 10) + pad(same, 10) + "  " + pad(duration, 24, left: true) + " " + test
    }

    package static func durationTrend(_ stats: HistoryAnalysis.TestStats) -> String {
        if let earlier = stats.earlierDuration, let recent = stats.recentDuration {
            // Below 5 ms of difference a percentage is timer noise.
            let change = earlier > 0 && abs(recent - earlier) >= 0.005 ? String(format: " (%+.0f%%)", (recent - earlier) * 100 / earlier) : ""
            return "\(seconds(earlier)) → \(seconds(recent))\(change)"
        }
        return stats.medianDuration.map { "median " + seconds($0) } ?? "–"
    }

    package static func coverageTrend(_ points: [HistoryAnalysis.CoveragePoint]) -> String {
        guard let first = points.first, let last = points.last else { return "no run recorded coverage" }
        let values = points.map(\.percent)
        return String(format: "%.2f%% → %.2f%% (%+.2f points) over %d run%@; lowest %.2f%%, highest %.2f%%",
                      first.percent, last.percent, last.percent - first.percent, points.count, points.count == 1 ? "" : "s",
                      values.min()!, values.max()!)
    }

    package static func seconds(_ value: Double) -> String { String(format: value < 10 ? "%.3f s" : "%.1f s", value) }
    package static func list(_ items: [String]) -> String { items.isEmpty ? "none" : items.joined(separator: ", ") }

    static func day(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
